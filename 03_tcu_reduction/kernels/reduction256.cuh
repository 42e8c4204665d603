#pragma once
// Reduction256 (Dakkak et al. §4.1): one segment of 256 is one tile A (row-major).
// V = P·A puts the column sums in row 0; R = V·Pᵀ sums row 0 into R[0][0].
//
//   P·A:  [1 … 1]   [a0   … a15 ]     [c0 c1 … c15]        V·Pᵀ: [c0 … c15]   [1 0 … 0]     [Σc 0 … 0]
//         [0 … 0] · [a16  … a31 ]  =  [ 0  0 …  0 ]              [ 0 …  0 ] · [1 0 … 0]  =  [ 0 0 … 0]
//         [  …  ]   [    …      ]     [     …     ]              [   …    ]   [  …    ]     [   …    ]
//         [0 … 0]   [a240 … a255]     [ 0  0 …  0 ]                           [1 0 … 0]
//
// V is an accumulator and must become an operand: it goes through shared memory (WMMA has no
// cast between fragment kinds), split into two fp16 halves to keep fp32 accuracy (tile_math.cuh).
// Segments shorter than 256 are zero-padded by the staging.
#include "03_tcu_reduction/tile_math.cuh"

namespace tcu::reduction {

template <int kWarps, int kInFlight>
__global__ void __launch_bounds__(kWarps * 32)
reduction256_kernel(const __half* __restrict__ x, float* __restrict__ out, long long num_segments,
                    long long segment_size) {
  __shared__ __align__(32) WarpScratch scratch[kWarps];
  __shared__ __align__(32) __half tiles[kWarps][kInFlight][kTileElems];
  WarpScratch& s = scratch[warp_in_block()];
  const int lane = lane_id();

  FragA p;
  FragBRow pt;
  init_p_pt(p, pt, s, lane);

  const long long warp = (static_cast<long long>(blockIdx.x) * kWarps + warp_in_block()) * kInFlight;
  const long long stride = static_cast<long long>(gridDim.x) * kWarps * kInFlight;
  for (long long s0 = warp; s0 < num_segments; s0 += stride) {
    staging::Piece piece[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      piece[k] = (s0 + k < num_segments)
                     ? staging::load_contiguous(x + (s0 + k) * segment_size, segment_size, 0, lane)
                     : staging::zero_piece();
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) staging::store_piece(tiles[warp_in_block()][k], piece[k], lane);
    __syncwarp();
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      if (s0 + k >= num_segments) break;
      FragBRow a;
      Acc v;
      wmma::load_matrix_sync(a, tiles[warp_in_block()][k], kTile);
      wmma::fill_fragment(v, 0.0f);
      wmma::mma_sync(v, p, a, v);                          // V = P·A
      const float total = store_and_collapse(s, v, pt, lane);  // R = V·Pᵀ
      if (lane == 0) out[s0 + k] = total;
    }
  }
}

}  // namespace tcu::reduction
