#pragma once
// Reduction256N, work-inefficient (Dakkak et al. §4.1): N times Reduction256, the running
// scalar carried in the accumulator C of the second MMA:  R_i = (P·A_i)·Pᵀ + R_{i−1}.
// 2N MMAs and N trips of V through shared memory.
//
// One warp reduces one work item: a chunk of at most `chunk` elements of one segment (the
// launcher splits long segments into chunks and adds the partials in a second pass).
#include "03_tcu_reduction/tile_math.cuh"

namespace tcu::reduction {

template <int kWarps>
__global__ void __launch_bounds__(kWarps * 32)
reduction256n_inefficient_kernel(const __half* __restrict__ x, float* __restrict__ out, long long num_segments,
                                 long long segment_size, long long chunk, long long chunks_per_segment) {
  __shared__ __align__(32) WarpScratch scratch[kWarps];
  WarpScratch& s = scratch[warp_in_block()];
  const int lane = lane_id();

  FragA p;
  FragBRow pt;
  init_p_pt(p, pt, s, lane);

  const long long items = num_segments * chunks_per_segment;
  for (long long w = static_cast<long long>(blockIdx.x) * kWarps + warp_in_block(); w < items;
       w += static_cast<long long>(gridDim.x) * kWarps) {
    const ChunkItem item = chunk_item(x, w, segment_size, chunk, chunks_per_segment);
    const __half* p_in = item.p;
    const long long len = item.len;
    float r = 0.0f;  // R[0][0], carried from tile to tile
    for (long long t = 0; t < len; t += kTileElems) {
      staging::store_piece(s.tile, staging::load_contiguous(p_in, len, t, lane), lane);
      __syncwarp();
      FragBRow a;
      Acc v;
      wmma::load_matrix_sync(a, s.tile, kTile);
      wmma::fill_fragment(v, 0.0f);
      wmma::mma_sync(v, p, a, v);  // V_i = P·A_i
      wmma::store_matrix_sync(s.v, v, kTile, wmma::mem_row_major);
      __syncwarp();
      r = collapse_row0(s, pt, lane, r);  // R_i = V_i·Pᵀ + R_{i−1} (R_{i−1} is the C operand)
    }
    if (lane == 0) out[w] = r;
  }
}

}  // namespace tcu::reduction
