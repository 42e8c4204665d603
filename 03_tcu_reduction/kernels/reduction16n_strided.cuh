#pragma once
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
#include "03_tcu_reduction/tile_math.cuh"

namespace tcu::reduction {

template <int kWarps, int kInFlight>
__global__ void __launch_bounds__(kWarps * 32)
reduction16n_strided_kernel(const __half* __restrict__ x, float* __restrict__ out, long long num_segments,
                            long long segment_size) {
  struct Scratch {
    __half tiles[kInFlight][kTileElems];
    float v[kTileElems];
  };
  __shared__ __align__(32) Scratch scratch[kWarps];
  Scratch& s = scratch[warp_in_block()];
  const int lane = lane_id();

  FragA p;  // Initialize P
  load_constant(p, ConstantMatrix::P, s.tiles[0], lane);

  // Short segments (at most kInFlight column blocks) are packed: a warp takes kInFlight / blocks
  // whole groups at once, so that kInFlight loads are in flight however short the segments are.
  const long long groups = (num_segments + kTile - 1) / kTile;  // 16 segments per group
  const long long col_blocks = (segment_size + kTile - 1) / kTile;
  const int per_iter = col_blocks <= kInFlight ? static_cast<int>(kInFlight / col_blocks) : 1;
  const long long warps = static_cast<long long>(gridDim.x) * kWarps;
  for (long long g0 = (static_cast<long long>(blockIdx.x) * kWarps + warp_in_block()) * per_iter; g0 < groups;
       g0 += warps * per_iter) {
    for (int gi = 0; gi < per_iter && g0 + gi < groups; ++gi) {
      const long long s0 = (g0 + gi) * kTile;
      Acc v;
      wmma::fill_fragment(v, 0.0f);  // V = 0
      // packed: column blocks of groups g0 … g0 + per_iter − 1 were loaded together (gi == 0)
      for (long long col = 0; col < segment_size; col += kInFlight * kTile) {
        if (per_iter == 1 || gi == 0) {
          staging::Piece piece[kInFlight];
#pragma unroll
          for (int k = 0; k < kInFlight; ++k) {  // A_i = LoadTile(in + 16i, ldm = 16N)
            const long long grp = (per_iter == 1) ? g0 : g0 + k / col_blocks;
            const long long c = (per_iter == 1) ? col + k * kTile : (k % col_blocks) * kTile;
            const bool use = (per_iter == 1) || (k / col_blocks < per_iter);
            piece[k] = use ? staging::load_segment_rows(x, num_segments, segment_size, grp * kTile, c, lane)
                           : staging::zero_piece();
          }
          __syncwarp();
#pragma unroll
          for (int k = 0; k < kInFlight; ++k) staging::store_piece(s.tiles[k], piece[k], lane);
          __syncwarp();
        }
        const int first = (per_iter == 1) ? 0 : gi * static_cast<int>(col_blocks);
        const int count = (per_iter == 1) ? kInFlight : static_cast<int>(col_blocks);
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

}  // namespace tcu::reduction
