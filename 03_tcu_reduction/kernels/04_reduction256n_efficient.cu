// Reduction256N, work-efficient (Dakkak et al. §4.1): accumulate every tile into the same V,
//   V_i = P·A_i + V_{i−1}   (i = 1 … N),   then one   R = V_N·Pᵀ,
// N + 2 MMAs with the hi/lo split of V (collapse.cuh) instead of 3N (N + 1 against 2N when V
// is rounded to fp16, as in the paper).
//
//   V_N = P·A_1 + P·A_2 + … + P·A_N = P·(A_1 + … + A_N):  row 0 = column sums of all N tiles
//
// One warp reduces one work item: a chunk of at most `chunk` elements of one segment; the
// launcher splits long segments so that there are enough warps (the paper's "low occupancy
// above 2^15" fix) and adds the fp32 partials in a second, deterministic pass
// (split_segments.cuh).
//
// Software pipeline (tc::run_round_pipeline, as in 08_reduction16_multisegment.cu): a warp
// walks its items in rounds of kTiles tiles (kTiles coalesced 16-byte loads per lane). As soon
// as a round sits in shared memory, the loads of the warp's NEXT round are issued — the next
// round of the same chunk, or the first round of the warp's next chunk — so they are in flight
// while this round is multiplied and while V·Pᵀ collapses a finished chunk. The tiles are
// added in the same order as without the pipeline (tile 1, 2, … of the chunk): the result bits
// do not change.
//
// Shared memory per warp: the kTiles staged tiles; the scratch of the last step (V, hi, lo,
// collapse.cuh's WarpScratch) reuses them once a chunk's MMAs are done.
#include "03_tcu_reduction/kernels/collapse.cuh"
#include "03_tcu_reduction/kernels/launchers.hpp"
#include "03_tcu_reduction/kernels/split_segments.cuh"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"

namespace tcu::detail::reduce {

// A warp's walk over its rounds: round `t / kRound` of chunk item `item`, then the chunk's next
// round, or the first round of the warp's next item (grid-stride).
template <int kTiles>
struct ChunkRounds {
  static constexpr std::int64_t kRound = std::int64_t(kTiles) * kTileElems;
  const __half* x;
  std::int64_t segment_size, chunk, chunks_per_segment, items, stride;
  std::int64_t item;  // the work item
  ChunkItem ci;       // its chunk
  std::int64_t t;     // first element of the round within the chunk
  __device__ bool done() const { return item >= items; }
  __device__ bool last_round() const { return t + kRound >= ci.len; }
  __device__ void advance() {
    if (!last_round()) {
      t += kRound;
      return;
    }
    item += stride;
    t = 0;
    if (item < items) ci = chunk_item(x, item, segment_size, chunk, chunks_per_segment);
  }
};

template <int kWarpsPerBlock, int kTiles>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
reduction256n_efficient_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                               std::int64_t segment_size, std::int64_t chunk, std::int64_t chunks_per_segment) {
  static_assert(kTiles * kTileElems * sizeof(__half) >= sizeof(WarpScratch), "the scratch reuses the staged tiles");
  __shared__ __align__(32) __half tiles[kWarpsPerBlock][kTiles][kTileElems];
  const int lane = lane_id();
  const int w = warp_in_block();
  WarpScratch& s = *reinterpret_cast<WarpScratch*>(&tiles[w][0][0]);

  FragA p;
  FragBRow pt;
  init_p_pt(p, pt, s, lane);
  __syncwarp();

  using Rounds = ChunkRounds<kTiles>;
  Rounds walk{x, segment_size, chunk, chunks_per_segment, num_segments * chunks_per_segment,
              static_cast<std::int64_t>(gridDim.x) * kWarpsPerBlock};
  walk.item = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + w;
  walk.t = 0;
  if (walk.done()) return;  // no block-wide barrier follows
  walk.ci = chunk_item(x, walk.item, segment_size, chunk, chunks_per_segment);

  tc::Piece piece[kTiles];
  FragAcc v;
  wmma::fill_fragment(v, 0.0f);  // V_0 = 0
  tc::run_round_pipeline(
      walk,
      [&](const Rounds& r) {  // kTiles coalesced 512-byte loads per warp
#pragma unroll
        for (int k = 0; k < kTiles; ++k)
          piece[k] = tc::load_contiguous<tc::Cache::read_only>(r.ci.p, r.ci.len,
                                                               r.t + static_cast<std::int64_t>(k) * kTileElems, lane);
      },
      [&] {
#pragma unroll
        for (int k = 0; k < kTiles; ++k) tc::store_piece(tiles[w][k], piece[k], lane);
      },
      [&](const Rounds& r) {
        // BEGIN EXERCISE 03.4 Reduction256N, work-efficient: V_i = P·A_i + V_{i−1}, then one V_N·Pᵀ
        // HINT: The round's kTiles tiles sit row-major in tiles[w][k]; tile k holds elements
        // HINT: r.t + 256k … of the chunk and exists while that is < r.ci.len. Load each as a
        // HINT: FragBRow and accumulate mma_sync(v, p, a, v) — no collapse per tile. After the
        // HINT: chunk's last round (r.last_round()): __syncwarp(), zero s.hi and s.lo (the staged
        // HINT: tiles overwrote them), store_and_collapse (R = V_N·Pᵀ), lane 0 writes
        // HINT: out[r.item], and V starts again from zero.
        // SIZE: 14 to 18 lines
#pragma unroll
        for (int k = 0; k < kTiles; ++k) {
          if (r.t + static_cast<std::int64_t>(k) * kTileElems >= r.ci.len) break;
          FragBRow a;
          wmma::load_matrix_sync(a, tiles[w][k], kTile);
          wmma::mma_sync(v, p, a, v);  // V_i = P·A_i + V_{i−1}
        }
        if (r.last_round()) {
          __syncwarp();           // every lane is done with the tiles the scratch overlays
          zero_tile(s.hi, lane);  // collapse_row0 needs rows 1 … 15 of hi and lo zero; the
          zero_tile(s.lo, lane);  // staged tiles overwrote them (store_and_collapse syncs first)
          const float total = store_and_collapse(s, v, pt, lane);  // R = V_N·Pᵀ
          if (lane == 0) out[r.item] = total;
          wmma::fill_fragment(v, 0.0f);
        }
        // STUB: (void)r; (void)p; (void)pt; (void)s; (void)out; (void)lane;
        // END EXERCISE
      });
}

cudaError_t launch_reduction256n_efficient(const __half* d_in, float* d_out, std::int64_t num_segments,
                                           std::int64_t segment_size, cudaStream_t stream) {
  // Resident blocks only, as for the multi-segment kernel: each warp walks its chunks in the
  // software pipeline (the next round's loads in flight during this round's MMAs).
  const auto kernel = reduction256n_efficient_kernel<kWarps, kEfficientRoundTiles>;
  return run_split(d_out, num_segments, segment_size, kEfficientGranule, stream,
                   [&](float* out, std::int64_t chunk, std::int64_t cps) {
                     const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(kernel), kThreads,
                                                             ceil_div(num_segments * cps, kWarps));
                     kernel<<<grid, kThreads, 0, stream>>>(d_in, out, num_segments, segment_size, chunk, cps);
                   });
}

}  // namespace tcu::detail::reduce
