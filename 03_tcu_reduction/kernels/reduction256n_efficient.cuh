#pragma once
// Reduction256N, work-efficient (Dakkak et al. §4.1): accumulate every tile into the same V,
//   V_i = P·A_i + V_{i−1}   (i = 1 … N),   then one   R = V_N·Pᵀ,
// N + 1 MMAs (+1 for the fp32 split of V, tile_math.cuh) instead of 2N.
//
//   V_N = P·A_1 + P·A_2 + … + P·A_N = P·(A_1 + … + A_N):  row 0 = column sums of all N tiles
//
// One warp reduces one work item: a chunk of at most `chunk` elements of one segment; the
// launcher splits long segments so that there are enough warps (the paper's "low occupancy
// above 2^15" fix) and adds the fp32 partials in a second, deterministic pass. kInFlight tiles
// are loaded (16-byte vectors) before the first of them is multiplied.
#include "03_tcu_reduction/tile_math.cuh"

namespace tcu::reduction {

// kLoads 16-byte loads per lane are in flight (registers); they pass through kStage shared
// tiles, kStage at a time.
template <int kWarps, int kLoads, int kStage>
__global__ void __launch_bounds__(kWarps * 32)
reduction256n_efficient_kernel(const __half* __restrict__ x, float* __restrict__ out, long long num_segments,
                               long long segment_size, long long chunk, long long chunks_per_segment) {
  static_assert(kLoads % kStage == 0, "loads pass through the stage in whole rounds");
  __shared__ __align__(32) WarpScratch scratch[kWarps];
  __shared__ __align__(32) __half tiles[kWarps][kStage][kTileElems];
  WarpScratch& s = scratch[warp_in_block()];
  __half(*my_tiles)[kTileElems] = tiles[warp_in_block()];
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
    Acc v;
    wmma::fill_fragment(v, 0.0f);  // V_0 = 0
    for (long long t = 0; t < len; t += kLoads * kTileElems) {
      staging::Piece piece[kLoads];
#pragma unroll
      for (int k = 0; k < kLoads; ++k) piece[k] = staging::load_contiguous(p_in, len, t + k * kTileElems, lane);
#pragma unroll
      for (int r = 0; r < kLoads; r += kStage) {
        if (t + r * kTileElems >= len) break;
        __syncwarp();  // the previous round's MMAs have read the tiles
#pragma unroll
        for (int k = 0; k < kStage; ++k) staging::store_piece(my_tiles[k], piece[r + k], lane);
        __syncwarp();
#pragma unroll
        for (int k = 0; k < kStage; ++k) {
          if (t + (r + k) * kTileElems >= len) break;
          FragBRow a;
          wmma::load_matrix_sync(a, my_tiles[k], kTile);
          wmma::mma_sync(v, p, a, v);  // V_i = P·A_i + V_{i−1}
        }
      }
    }
    __syncwarp();
    const float total = store_and_collapse(s, v, pt, lane);  // R = V_N·Pᵀ
    if (lane == 0) out[w] = total;
  }
}

}  // namespace tcu::reduction
