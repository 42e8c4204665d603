// Reduction256N, work-efficient (Dakkak et al. §4.1): accumulate every tile into the same V,
//   V_i = P·A_i + V_{i−1}   (i = 1 … N),   then one   R = V_N·Pᵀ,
// N + 2 MMAs with the hi/lo split of V (02_reduction256.cu) instead of 3N (N + 1 against 2N when V
// is rounded to fp16, as in the paper).
//
//   V_N = P·A_1 + P·A_2 + … + P·A_N = P·(A_1 + … + A_N):  row 0 = column sums of all N tiles
//
// One warp reduces one work item: a chunk of one segment. Long segments are cut into warp
// chunks of whole rounds (tc::plan_warp_chunks: enough warps for the paper's "low occupancy
// above 2^15") and the fp32 partials are added in a second, deterministic pass (tc::run_chunks).
//
// Software pipeline (tc::run_round_pipeline): a warp walks its chunks in rounds of kTiles tiles
// (kTiles coalesced 16-byte loads per lane); as soon as a round sits in shared memory, the loads
// of the warp's next round (of this chunk or of its next chunk) are issued, so they are in
// flight during this round's MMAs and the V·Pᵀ of a finished chunk. The tiles are added in
// chunk order, as without the pipeline: the result bits do not change. The scratch of V·Pᵀ
// (V, hi, lo) reuses the staged tiles once a chunk's MMAs are done.
#include "common/tensor_core/chunks.hpp"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"

namespace tcu::detail::reduce {
using namespace tc;  // the shared tensor-core vocabulary: FragA, kTile, load_contiguous, …

constexpr int kWarps = 8, kRoundTiles = 8;  // warps per block; tiles per round (and chunk granule)

// Per-warp scratch of V·Pᵀ (as in 02_reduction256.cu), laid over the staged tiles.
struct WarpScratch {
  __half tile[kTileElems];  // a constant matrix while it is loaded
  float v[kTileElems];      // V stored to become an operand, then R
  __half hi[kTileElems];    // fp16(V)
  __half lo[kTileElems];    // fp16(V − fp16(V))
};

// A warp's walk over its rounds: the round at element t of chunk `item`, then the chunk's next
// round, or the first round of the warp's next item (grid-stride).
template <int kTiles>
struct ChunkRounds {
  static constexpr std::int64_t kRound = std::int64_t(kTiles) * kTileElems;
  const __half* x;
  std::int64_t segment_size;
  ChunkPlan plan;
  std::int64_t items, stride;
  std::int64_t item;  // the work item
  const __half* p;    // its chunk: p[0 … len)
  std::int64_t len;
  std::int64_t t;     // first element of the round within the chunk
  __device__ bool done() const { return item >= items; }
  __device__ bool last_round() const { return t + kRound >= len; }
  __device__ void start_chunk() {
    const Chunk c = chunk_of(item, segment_size, plan);
    p = x + c.first;
    len = c.len;
  }
  __device__ void advance() {
    if (!last_round()) {
      t += kRound;
      return;
    }
    item += stride;
    t = 0;
    if (item < items) start_chunk();
  }
};

template <int kWarpsPerBlock, int kTiles>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
reduction256n_efficient_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                               std::int64_t segment_size, ChunkPlan plan) {
  static_assert(kTiles * kTileElems * sizeof(__half) >= sizeof(WarpScratch), "the scratch reuses the staged tiles");
  __shared__ __align__(32) __half tiles[kWarpsPerBlock][kTiles][kTileElems];
  const int lane = lane_id();
  const int w = warp_in_block();
  WarpScratch& s = *reinterpret_cast<WarpScratch*>(&tiles[w][0][0]);

  FragA p;  // Initialize P and Pᵀ
  FragBRow pt;
  load_constant(p, ConstantMatrix::P, s.tile, lane);
  load_constant(pt, ConstantMatrix::Pt, s.tile, lane);
  __syncwarp();

  using Rounds = ChunkRounds<kTiles>;
  Rounds walk{x, segment_size, plan, num_segments * plan.chunks_per_segment,
              static_cast<std::int64_t>(gridDim.x) * kWarpsPerBlock};
  walk.item = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + w;
  walk.t = 0;
  if (walk.done()) return;  // no block-wide barrier follows
  walk.start_chunk();

  tc::Piece piece[kTiles];
  FragAcc v;
  wmma::fill_fragment(v, 0.0f);  // V_0 = 0
  tc::run_round_pipeline(
      walk,
      [&](const Rounds& r) {  // kTiles coalesced 512-byte loads per warp
#pragma unroll
        for (int k = 0; k < kTiles; ++k)
          piece[k] = tc::load_contiguous<tc::Cache::read_only>(r.p, r.len,
                                                               r.t + static_cast<std::int64_t>(k) * kTileElems, lane);
      },
      [&] {
#pragma unroll
        for (int k = 0; k < kTiles; ++k) tc::store_piece(tiles[w][k], piece[k], lane);
      },
      [&](const Rounds& r) {
        // BEGIN EXERCISE 03.4 Reduction256N, work-efficient: V_i = P·A_i + V_{i−1}, then one V_N·Pᵀ
        // HINT: The round's kTiles tiles sit row-major in tiles[w][k]; tile k holds elements
        // HINT: r.t + 256k … of the chunk and exists while that is < r.len. Load each as a
        // HINT: FragBRow and accumulate mma_sync(v, p, a, v) — no V·Pᵀ per tile. After the chunk's
        // HINT: last round (r.last_round()): __syncwarp() (the scratch overlays the tiles), then
        // HINT: R = V_N·Pᵀ as in 02_reduction256.cu (zero s.hi and s.lo again, store V to s.v,
        // HINT: tc::mma_split_row0 with pt, R[0][0]; tc::row16_sum when it does not split),
        // HINT: lane 0 writes out[r.item], and V starts again from zero.
        // SIZE: 20 to 25 lines
#pragma unroll
        for (int k = 0; k < kTiles; ++k) {
          if (r.t + static_cast<std::int64_t>(k) * kTileElems >= r.len) break;
          FragBRow a;
          wmma::load_matrix_sync(a, tiles[w][k], kTile);
          wmma::mma_sync(v, p, a, v);  // V_i = P·A_i + V_{i−1}
        }
        if (r.last_round()) {
          __syncwarp();  // every lane is done with the tiles the scratch overlays
          store_piece(s.hi, zero_piece(), lane);  // the staged tiles overwrote rows 1 … 15 of hi
          store_piece(s.lo, zero_piece(), lane);  // and lo, which mma_split_row0 needs zero
          wmma::store_matrix_sync(s.v, v, kTile, wmma::mem_row_major);
          __syncwarp();
          FragAcc rn;
          wmma::fill_fragment(rn, 0.0f);
          float total;
          if (mma_split_row0(rn, s.v, pt, s.hi, s.lo, lane)) {  // R = V_N·Pᵀ
            wmma::store_matrix_sync(s.v, rn, kTile, wmma::mem_row_major);
            __syncwarp();
            total = s.v[0];
          } else {
            total = row16_sum(s.v, lane);  // V_N does not split: row 0 in fp32
          }
          __syncwarp();
          if (lane == 0) out[r.item] = total;
          wmma::fill_fragment(v, 0.0f);
        }
        // STUB: (void)r; (void)p; (void)pt; (void)s; (void)out; (void)lane;
        // END EXERCISE
      });
}

ChunkPlan reduction256n_efficient_chunks(std::int64_t num_segments, std::int64_t segment_size, int sm_count) {
  return plan_warp_chunks(num_segments, segment_size, std::int64_t(kRoundTiles) * kTileElems, sm_count);
}

cudaError_t launch_reduction256n_efficient(const __half* d_in, float* d_out, std::int64_t num_segments,
                                           std::int64_t segment_size, cudaStream_t stream) {
  // Resident blocks only, as for the multi-segment kernel: each warp walks its chunks in the
  // software pipeline (the next round's loads in flight during this round's MMAs).
  const auto kernel = reduction256n_efficient_kernel<kWarps, kRoundTiles>;
  return run_chunks(d_out, num_segments, reduction256n_efficient_chunks(num_segments, segment_size, sm_count()),
                    stream, [&](float* out, const ChunkPlan& plan) {
                      const int grid = resident_grid_size(reinterpret_cast<const void*>(kernel), kWarps * 32,
                                                          ceil_div(num_segments * plan.chunks_per_segment, kWarps));
                      kernel<<<grid, kWarps * 32, 0, stream>>>(d_in, out, num_segments, segment_size, plan);
                      return cudaGetLastError();
                    });
}

}  // namespace tcu::detail::reduce
