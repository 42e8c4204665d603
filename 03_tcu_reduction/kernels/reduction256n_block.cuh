#pragma once
// Block-level Reduction256N (Dakkak et al. Alg. 4): a block per segment. Warp w reduces tiles
// w, w + W, w + 2W, … of the segment with the work-efficient chain V = P·A + V (neighbouring
// warps read neighbouring tiles: the block reads the segment front to back), collapses V
// with V·Pᵀ and writes its partial to shared memory. After a barrier — missing in the
// paper's code (erratum): without it warp 0 may read partials not yet written — warp 0 puts
// the W partials in row 0 of a tile and sums them with one more V·Pᵀ.
#include "03_tcu_reduction/tile_math.cuh"

namespace tcu::reduction {

template <int kWarps, int kInFlight>
__global__ void __launch_bounds__(kWarps * 32)
reduction256n_block_kernel(const __half* __restrict__ x, float* __restrict__ out, long long num_segments,
                           long long segment_size) {
  static_assert(kWarps <= kTile, "the partials fill row 0 of one tile");
  __shared__ __align__(32) WarpScratch scratch[kWarps];
  __shared__ __align__(32) __half tiles[kWarps][kInFlight][kTileElems];
  __shared__ float partial[kWarps];
  const int wib = warp_in_block(), lane = lane_id();
  WarpScratch& s = scratch[wib];

  FragA p;  // Alg. 4: Initialize P (and Pᵀ)
  FragBRow pt;
  init_p_pt(p, pt, s, lane);

  for (long long seg = blockIdx.x; seg < num_segments; seg += gridDim.x) {
    const __half* p_in = x + seg * segment_size;
    Acc v;
    wmma::fill_fragment(v, 0.0f);
    for (long long t = static_cast<long long>(wib) * kTileElems; t < segment_size;
         t += static_cast<long long>(kWarps) * kInFlight * kTileElems) {
      staging::Piece piece[kInFlight];
#pragma unroll
      for (int k = 0; k < kInFlight; ++k)
        piece[k] = staging::load_contiguous(p_in, segment_size, t + static_cast<long long>(k) * kWarps * kTileElems,
                                            lane);
      __syncwarp();
#pragma unroll
      for (int k = 0; k < kInFlight; ++k) staging::store_piece(tiles[wib][k], piece[k], lane);
      __syncwarp();
#pragma unroll
      for (int k = 0; k < kInFlight; ++k) {
        if (t + static_cast<long long>(k) * kWarps * kTileElems >= segment_size) break;
        FragBRow a;
        wmma::load_matrix_sync(a, tiles[wib][k], kTile);
        wmma::mma_sync(v, p, a, v);  // V = P·A + V (warp level, Alg. 4 line "warp reduce")
      }
    }
    const float mine = store_and_collapse(s, v, pt, lane);  // R = V·Pᵀ
    if (lane == 0) partial[wib] = mine;
    __syncthreads();  // erratum: the barrier the published block kernel lacks
    if (wib == 0) {
      if (lane < kTile) s.v[lane] = (lane < kWarps) ? partial[lane] : 0.0f;  // row 0 = the partials
      __syncwarp();
      const float total = collapse_row0(s, pt, lane);
      if (lane == 0) out[seg] = total;
    }
    __syncthreads();  // partial[] is reused by the next segment
  }
}

}  // namespace tcu::reduction
