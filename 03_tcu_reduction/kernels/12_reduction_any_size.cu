// Reduction of segments of any size (ours; docs/algorithms.md, "Segments of any size"): the
// warp reads ALIGNED 256-element tiles of the array, whatever the segment size, in rounds of 8
// tiles with the next round's loads in flight (tc::run_round_pipeline), so segment boundaries
// fall anywhere in a tile row. Per round (common/tensor_core/segmented_row_scan.cuh):
//
//   1. cut every row at its segment start: A_k = A_pre,k + A_post,k        (tc::cut_round)
//   2. V = Σ_k E_k·A_pre,kᵀ + E_(8+k)·A_post,kᵀ   16 MMAs, one accumulator:   (tc::round_row_totals)
//        V[k][r] = P (before the start), V[8 + k][r] = Q (from the start) of row r of tile k
//   3. the 128 rows joined by a segmented scan of their totals after the fp32 carry of the
//      previous round; a segment ending in row g sums to carry_in(g) + P_g  (tc::round_row_carries)
//
// Step 2 is Reduction16 multi-segment's V = Σ E_k·A_k with the rows cut in two; chapter 04's
// scan_any_size shares steps 1 and 3.
//
// Work items: each warp takes an even share of WHOLE segments (no segment split between warps,
// no second pass) and walks the aligned tiles that cover them; what lies outside its share is
// neither loaded (whole pieces) nor written. Segments of 17 elements and more.
#include <algorithm>

#include "03_tcu_reduction/kernels/collapse.cuh"
#include "03_tcu_reduction/kernels/launchers.hpp"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"
#include "common/tensor_core/segmented_row_scan.cuh"

namespace tcu::detail::reduce {
namespace {

constexpr int kRoundTiles = tc::kRowScanTiles;      // 8 tiles per round and warp
constexpr int kAnyWarps = kAnySizeWarps;            // warps per block (launchers.hpp)
constexpr int kAnyMinBlocks = kAnySizeBlocksPerSm;  // 4 × 4 warps per SM at least (shared memory: 33 KB a block)
constexpr std::int64_t kMinShare = 4096;            // elements: fewer warps than that many per warp
static_assert(kRoundTiles * kTileElems == kAnySizeRoundElems, "the round the error bound assumes");

struct alignas(128) AnyWarpSmem {
  __half post[kRoundTiles][kTileElems];  // the staged round (A_post after the cut)
  __half pre[kRoundTiles][kTileElems];   // A_pre; V reuses pre[0 … 1]
};

// The warp's walk: rounds of kRoundTiles aligned tiles from `tile` up to `end_tile`.
struct TileRounds {
  std::int64_t tile, end_tile;
  __device__ bool done() const { return tile >= end_tile; }
  __device__ void advance() { tile += kRoundTiles; }
};

__global__ void __launch_bounds__(kAnyWarps * 32, kAnyMinBlocks)
    reduction_any_size_kernel(const __half* __restrict__ in, float* __restrict__ out, std::int64_t num_segments,
                              std::int64_t segment_size) {
  __shared__ __align__(32) __half e_window[tc::kEWindowRows * kTile];
  __shared__ AnyWarpSmem smem[kAnyWarps];
  const int warp = warp_in_block(), lane = lane_id();
  AnyWarpSmem& sm = smem[warp];
  tc::write_e_window(e_window, threadIdx.x, blockDim.x);
  __syncthreads();

  // The warp's share: whole segments, elements [i0, i1).
  const tc::WarpShare share =
      tc::warp_segment_share(num_segments, segment_size, static_cast<std::int64_t>(blockIdx.x) * kAnyWarps + warp,
                             static_cast<std::int64_t>(gridDim.x) * kAnyWarps);
  if (share.first >= share.end) return;
  const std::int64_t i0 = share.first, i1 = share.end;
  const unsigned s = static_cast<unsigned>(segment_size);
  const unsigned step = static_cast<unsigned>(kTileElems) % s;  // a row's offset one tile later
  const bool vec_in = tc::aligned16(in);
  float* v = reinterpret_cast<float*>(&sm.pre[0][0]);

  tc::Piece piece[kRoundTiles];
  float carry = 0.0f;
  tc::run_round_pipeline(
      TileRounds{i0 / kTileElems, ceil_div(i1, std::int64_t{kTileElems})},
      [&](const TileRounds& round) {  // 512 contiguous bytes per load instruction
#pragma unroll
        for (int k = 0; k < kRoundTiles; ++k) {
          const tc::PieceSource src = tc::share_piece_source(share, (round.tile + k) * kTileElems + lane * tc::kPieceElems);
          piece[k] = src.valid <= 0 ? tc::zero_piece()
                                    : tc::load_piece<tc::Cache::streaming>(in + src.offset, src.valid, vec_in);
        }
      },
      [&] {
#pragma unroll
        for (int k = 0; k < kRoundTiles; ++k) tc::store_piece(sm.post[k], piece[k], lane);
      },
      [&](const TileRounds& round) {
        const tc::RowCursor at = tc::row_cursor(round.tile * kTileElems, segment_size);  // the round's first row
        tc::cut_round<kRoundTiles>(sm.post, sm.pre, tc::row_cursor_after(at, kTile * tc::piece_row(lane), s).rem,
                                   step, s, lane);                                  // 1.
        tc::round_row_totals<kRoundTiles>(v, sm.post, sm.pre, e_window);           // 2.
        carry = tc::round_row_carries<kRoundTiles>(                                 // 3.
            v, tc::row_cursor_after(at, 4 * kTile * lane, s), s, carry, lane,
            [&](int, float carry_in, float pre_total, float, int, int end, std::int64_t segment) {
              if (end < kTile && segment >= share.first_segment && segment < share.end_segment) out[segment] = carry_in + pre_total;
            });
        // (the pipeline's __syncwarp follows: V and the tiles are the next round's)
      });
}

}  // namespace

cudaError_t launch_reduction_any_size(const __half* d_in, float* d_out, std::int64_t num_segments,
                                      std::int64_t segment_size, cudaStream_t stream) {
  // A row holds at most one segment start from 17 on; 1 … 16: a segment per row (Reduction16).
  if (segment_size <= tc::kTile) return launch_reduction16(d_in, d_out, num_segments, segment_size, stream);
  const std::int64_t total = num_segments * segment_size;
  const std::int64_t want_warps = std::min(num_segments, std::max<std::int64_t>(1, total / kMinShare));
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(reduction_any_size_kernel), kAnyWarps * 32,
                                          ceil_div(want_warps, std::int64_t{kAnyWarps}));
  reduction_any_size_kernel<<<grid, kAnyWarps * 32, 0, stream>>>(d_in, d_out, num_segments, segment_size);
  return cudaGetLastError();
}

}  // namespace tcu::detail::reduce
