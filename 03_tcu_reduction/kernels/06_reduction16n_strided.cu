// Reduction16N, strided (Dakkak et al. Fig. 8): 16 segments of length 16N side by side. Step i
// loads A with leading dimension = segment size, so column c of A is elements [16i, 16i+16)
// of segment c, and accumulates V = P·A + V. After N steps row 0 of V holds the 16 sums.
//
//   step i:   A = [ seg0[16i…16i+15] | seg1[16i…] | … | seg15[16i…] ]   (columns)
//             V = P·A + V
//
// Rows of the staged tile are 32-byte pieces of 16 different segments: every sector loaded is
// used, but a warp's request covers 16 places in memory (the "bad locality" of the paper for
// large N). The staging also pads a segment whose size is not a multiple of 16, and loads
// segments that start at addresses WMMA could not use directly.
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/segment_rows.cuh"

namespace tcu::detail::reduce {
using namespace tc;  // the shared tensor-core vocabulary: FragA, kTile, load_segment_rows, …

constexpr int kWarps = 8, kLoads = 8;  // warps per block; tiles in flight per warp

template <int kWarpsPerBlock, int kLoads>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
reduction16n_strided_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                            std::int64_t segment_size) {
  struct Scratch {
    __half tiles[kLoads][kTileElems];
    float v[kTileElems];
  };
  __shared__ __align__(32) Scratch scratch[kWarpsPerBlock];
  Scratch& s = scratch[warp_in_block()];
  const int lane = lane_id();

  FragA p;  // Initialize P
  tc::load_constant(p, ConstantMatrix::P, s.tiles[0], lane);

  // Short segments (at most kLoads column blocks) are packed: a warp takes kLoads / blocks
  // whole groups at once, so that kLoads loads are in flight however short the segments are.
  const std::int64_t groups = ceil_div(num_segments, kTile);  // 16 segments per group
  const std::int64_t col_blocks = ceil_div(segment_size, kTile);
  const int per_iter = col_blocks <= kLoads ? static_cast<int>(kLoads / col_blocks) : 1;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * kWarpsPerBlock;
  for (std::int64_t g0 = (static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + warp_in_block()) * per_iter;
       g0 < groups; g0 += warps * per_iter) {
    for (int gi = 0; gi < per_iter && g0 + gi < groups; ++gi) {
      const std::int64_t s0 = (g0 + gi) * kTile;
      FragAcc v;
      wmma::fill_fragment(v, 0.0f);  // V = 0
      // packed: column blocks of groups g0 … g0 + per_iter − 1 were loaded together (gi == 0)
      for (std::int64_t col = 0; col < segment_size; col += kLoads * kTile) {
        if (per_iter == 1 || gi == 0) {
          tc::Piece piece[kLoads];
#pragma unroll
          for (int k = 0; k < kLoads; ++k) {  // A_i = LoadTile(in + 16i, ldm = 16N)
            const std::int64_t grp = (per_iter == 1) ? g0 : g0 + k / col_blocks;
            const std::int64_t c = (per_iter == 1) ? col + k * kTile : (k % col_blocks) * kTile;
            const bool use = (per_iter == 1) || (k / col_blocks < per_iter);
            piece[k] = use ? tc::load_segment_rows<tc::Cache::read_only>(x, num_segments, segment_size, grp * kTile,
                                                                         c, lane)
                           : tc::zero_piece();
          }
          __syncwarp();
#pragma unroll
          for (int k = 0; k < kLoads; ++k) tc::store_piece(s.tiles[k], piece[k], lane);
          __syncwarp();
        }
        const int first = (per_iter == 1) ? 0 : gi * static_cast<int>(col_blocks);
        const int count = (per_iter == 1) ? kLoads : static_cast<int>(col_blocks);
        for (int k = 0; k < count; ++k) {
          if (per_iter == 1 && col + k * kTile >= segment_size) break;
          FragBCol a;
          wmma::load_matrix_sync(a, s.tiles[first + k], kTile);  // column c = segment s0 + c
          wmma::mma_sync(v, p, a, v);                             // V = P·A_i + V
        }
        if (per_iter > 1) break;  // a packed group has all its columns in one round
      }
      wmma::store_matrix_sync(s.v, v, kTile, wmma::mem_row_major);
      __syncwarp();
      if (lane < kTile && s0 + lane < num_segments) out[s0 + lane] = s.v[lane];  // row 0 of V
      __syncwarp();
    }
  }
}

cudaError_t launch_reduction16n_strided(const __half* d_in, float* d_out, std::int64_t num_segments,
                                        std::int64_t segment_size, cudaStream_t stream) {
  const std::int64_t groups = ceil_div(num_segments, kTile);
  reduction16n_strided_kernel<kWarps, kLoads><<<tc::grid_for(ceil_div(groups, kWarps), 8), kWarps * 32, 0, stream>>>(
      d_in, d_out, num_segments, segment_size);
  return cudaGetLastError();
}

}  // namespace tcu::detail::reduce
