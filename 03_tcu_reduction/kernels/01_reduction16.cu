// Reduction16 (Dakkak et al. §4.1): 256 contiguous elements are 16 segments of 16. Loaded
// column-major, column c of A is segment c; V = P·A puts the 16 column sums — the 16 segment
// sums — in row 0 of V.
//
//        P (row 0 = 1)          A (col c = segment c)            V = P·A
//   [1 1 1 … 1]         [a0,0  a1,0  …  a15,0 ]        [Σa0  Σa1  …  Σa15]
//   [0 0 0 … 0]    ·    [a0,1  a1,1  …  a15,1 ]   =    [ 0    0   …   0  ]
//   [    …    ]         [  …                  ]        [        …        ]
//   [0 0 0 … 0]         [a0,15 a1,15 …  a15,15]        [ 0    0   …   0  ]
//
// Segments shorter than 16 are zero-padded by the staging (rows of the staged tile are
// segments; read column-major they are A's columns). Each warp keeps kLoads tiles' loads in
// flight (16-byte vectors, 512 contiguous bytes per tile when segment_size is 16) and walks
// the tiles grid-stride.
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/segment_rows.cuh"

namespace tcu::detail::reduce {
using namespace tc;  // the shared tensor-core vocabulary: FragA, kTile, load_segment_rows, …

constexpr int kWarps = 8, kLoads = 8;  // warps per block; tiles in flight per warp

template <int kWarpsPerBlock, int kLoads>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
reduction16_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                   std::int64_t segment_size) {
  struct Scratch {
    __half tiles[kLoads][kTileElems];
    float v[kTileElems];
  };
  __shared__ __align__(32) Scratch scratch[kWarpsPerBlock];
  Scratch& s = scratch[warp_in_block()];
  const int lane = lane_id();

  FragA p;  // Alg. line "Initialize P"
  tc::load_constant(p, ConstantMatrix::P, s.tiles[0], lane);

  const std::int64_t num_tiles = ceil_div(num_segments, kTile);
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + warp_in_block()) * kLoads;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kWarpsPerBlock * kLoads;
  for (std::int64_t t0 = warp; t0 < num_tiles; t0 += stride) {
    tc::Piece piece[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k)  // LoadTile(in[16·16·t …], "colmajor"): all loads first
      piece[k] = tc::load_segment_rows<tc::Cache::read_only>(x, num_segments, segment_size, (t0 + k) * kTile, 0,
                                                             lane);
#pragma unroll
    for (int k = 0; k < kLoads; ++k) tc::store_piece(s.tiles[k], piece[k], lane);
    __syncwarp();
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      if (t0 + k >= num_tiles) break;
      // BEGIN EXERCISE 03.2 Reduction16: V = P·A, the 16 segment sums in row 0 of V
      // HINT: s.tiles[k] holds tile t0 + k row-major with one segment per row. Load it as a
      // HINT: col_major matrix_b fragment (FragBCol): column c of A is then segment c. One
      // HINT: mma_sync with p (FragA, already loaded) into a zeroed FragAcc; the accumulator's
      // HINT: layout is unspecified, so store it to s.v, __syncwarp(), and let lanes 0…15 write
      // HINT: row 0 to out[16·(t0 + k) + lane] (only segments < num_segments); a second
      // HINT: __syncwarp() keeps the next tile's store to s.v from overtaking those reads.
      // SIZE: 10 to 12 lines
      FragBCol a;
      FragAcc v;
      wmma::load_matrix_sync(a, s.tiles[k], kTile);  // column c = segment 16(t0+k) + c
      wmma::fill_fragment(v, 0.0f);
      wmma::mma_sync(v, p, a, v);  // V = P·A
      wmma::store_matrix_sync(s.v, v, kTile, wmma::mem_row_major);
      __syncwarp();
      const std::int64_t seg = (t0 + k) * kTile + lane;
      if (lane < kTile && seg < num_segments) out[seg] = s.v[lane];  // row 0 of V
      __syncwarp();
      // STUB: (void)p; (void)lane; (void)out;
      // END EXERCISE
    }
  }
}

cudaError_t launch_reduction16(const __half* d_in, float* d_out, std::int64_t num_segments,
                               std::int64_t segment_size, cudaStream_t stream) {
  const std::int64_t tiles = ceil_div(num_segments, kTile);
  reduction16_kernel<kWarps, kLoads><<<tc::grid_for(ceil_div(tiles, kWarps * kLoads), 8), kWarps * 32, 0, stream>>>(
      d_in, d_out, num_segments, segment_size);
  return cudaGetLastError();
}

}  // namespace tcu::detail::reduce
