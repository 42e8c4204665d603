#pragma once
// Reduction256N, work-efficient (Dakkak et al. §4.1): accumulate every tile into the same V,
//   V_i = P·A_i + V_{i−1}   (i = 1 … N),   then one   R = V_N·Pᵀ,
// N + 1 MMAs (+1 for the fp32 split of V, tile_math.cuh) instead of 2N.
//
//   V_N = P·A_1 + P·A_2 + … + P·A_N = P·(A_1 + … + A_N):  row 0 = column sums of all N tiles
//
// One warp reduces one work item: a chunk of at most `chunk` elements of one segment; the
// launcher splits long segments so that there are enough warps (the paper's "low occupancy
// above 2^15" fix) and adds the fp32 partials in a second, deterministic pass.
//
// Software pipeline (as in reduction16_multisegment.cuh): a warp walks its items in rounds of
// kTiles tiles (kTiles coalesced 16-byte loads per lane). As soon as a round sits in shared
// memory, the loads of the warp's NEXT round are issued — the next round of the same chunk, or
// the first round of the warp's next chunk — so they are in flight while this round is
// multiplied and while V·Pᵀ collapses a finished chunk. The tiles are added in the same order
// as without the pipeline (tile 1, 2, … of the chunk): the result bits do not change.
//
// Shared memory per warp: the kTiles staged tiles; the scratch of the last step (V, hi, lo,
// tile_math.cuh's WarpScratch) reuses them once a chunk's MMAs are done.
#include "03_tcu_reduction/tile_math.cuh"

namespace tcu::reduction {

template <int kWarps, int kTiles>
__global__ void __launch_bounds__(kWarps * 32)
reduction256n_efficient_kernel(const __half* __restrict__ x, float* __restrict__ out, long long num_segments,
                               long long segment_size, long long chunk, long long chunks_per_segment) {
  static_assert(kTiles * kTileElems * sizeof(__half) >= sizeof(WarpScratch), "the scratch reuses the staged tiles");
  __shared__ __align__(32) __half tiles[kWarps][kTiles][kTileElems];
  const int lane = lane_id();
  const int w = warp_in_block();
  WarpScratch& s = *reinterpret_cast<WarpScratch*>(&tiles[w][0][0]);

  FragA p;
  FragBRow pt;
  init_p_pt(p, pt, s, lane);
  __syncwarp();

  const long long items = num_segments * chunks_per_segment;
  const long long stride = static_cast<long long>(gridDim.x) * kWarps;
  constexpr long long kRound = static_cast<long long>(kTiles) * kTileElems;
  long long item = static_cast<long long>(blockIdx.x) * kWarps + w;
  if (item >= items) return;  // no block-wide barrier follows

  auto load_round = [&](staging::Piece(&piece)[kTiles], const ChunkItem& ci, long long t) {
#pragma unroll
    for (int k = 0; k < kTiles; ++k)  // kTiles coalesced 512-byte loads per warp
      piece[k] = staging::load_contiguous(ci.p, ci.len, t + static_cast<long long>(k) * kTileElems, lane);
  };

  ChunkItem ci = chunk_item(x, item, segment_size, chunk, chunks_per_segment);
  long long t = 0;  // first element of the round within the chunk
  staging::Piece piece[kTiles];
  load_round(piece, ci, t);
  Acc v;
  wmma::fill_fragment(v, 0.0f);  // V_0 = 0
  for (;;) {
#pragma unroll
    for (int k = 0; k < kTiles; ++k) staging::store_piece(tiles[w][k], piece[k], lane);
    __syncwarp();

    // Where the warp goes next: the chunk's next round, or the first round of its next chunk.
    long long next_item = item, next_t = t + kRound;
    ChunkItem next_ci = ci;
    const bool chunk_done = next_t >= ci.len;
    if (chunk_done) {
      next_item = item + stride;
      next_t = 0;
      if (next_item < items) next_ci = chunk_item(x, next_item, segment_size, chunk, chunks_per_segment);
    }
    if (next_item < items) load_round(piece, next_ci, next_t);  // in flight during the MMAs below

#pragma unroll
    for (int k = 0; k < kTiles; ++k) {
      if (t + static_cast<long long>(k) * kTileElems >= ci.len) break;
      FragBRow a;
      wmma::load_matrix_sync(a, tiles[w][k], kTile);
      wmma::mma_sync(v, p, a, v);  // V_i = P·A_i + V_{i−1}
    }
    __syncwarp();  // every lane is done with the tiles (the next round's, or the scratch's)

    if (chunk_done) {
      zero_tile(s.hi, lane);  // collapse_row0 needs rows 1 … 15 of hi and lo zero; the
      zero_tile(s.lo, lane);  // staged tiles overwrote them (store_and_collapse syncs first)
      const float total = store_and_collapse(s, v, pt, lane);  // R = V_N·Pᵀ
      if (lane == 0) out[item] = total;
      wmma::fill_fragment(v, 0.0f);
      __syncwarp();
    }
    if (next_item >= items) break;
    item = next_item;
    t = next_t;
    ci = next_ci;
  }
}

}  // namespace tcu::reduction
