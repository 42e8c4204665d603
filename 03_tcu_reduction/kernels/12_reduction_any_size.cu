// Reduction of segments of any size (ours; docs/algorithms.md, "Segments of any size"): a warp
// reads ALIGNED tiles in rounds of 8 (the next round's loads in flight) over an even share of
// WHOLE segments, no second pass (1 … 16 elements: Reduction16, a segment a row). A round's steps
// (rows cut at segment starts, two sums per row by 16 MMAs, a segmented scan): segmented_row_scan.cuh.
#include <algorithm>

#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/segmented_row_scan.cuh"
#include "common/tensor_core/staging.cuh"

namespace tcu::detail::reduce {
using namespace tc;  // the shared tensor-core vocabulary: kTile, Piece, cut_round, …
cudaError_t launch_reduction16(const __half*, float*, std::int64_t, std::int64_t, cudaStream_t);  // 01
namespace {

constexpr int kRoundTiles = kRowScanTiles;  // 8 tiles per round and warp
constexpr int kWarps = 4, kMinBlocks = 4;   // 4 × 4 warps per SM at least (shared memory: 33 KB a block)

struct alignas(128) AnyWarpSmem {
  __half post[kRoundTiles][kTileElems];  // the staged round (A_post after the cut)
  __half pre[kRoundTiles][kTileElems];   // A_pre; V reuses pre[0 … 1]
};

__global__ void __launch_bounds__(kWarps * 32, kMinBlocks)
    reduction_any_size_kernel(const __half* __restrict__ in, float* __restrict__ out, std::int64_t num_segments,
                              std::int64_t segment_size) {
  __shared__ __align__(32) __half e_window[kEWindowRows * kTile];
  __shared__ AnyWarpSmem smem[kWarps];
  const int warp = warp_in_block(), lane = lane_id();
  AnyWarpSmem& sm = smem[warp];
  write_e_window(e_window, threadIdx.x, blockDim.x);
  __syncthreads();

  const WarpShare share = warp_segment_share(num_segments, segment_size,  // whole segments
                                             static_cast<std::int64_t>(blockIdx.x) * kWarps + warp,
                                             static_cast<std::int64_t>(gridDim.x) * kWarps);
  if (share.first >= share.end) return;
  const unsigned s = static_cast<unsigned>(segment_size);
  const unsigned step = static_cast<unsigned>(kTileElems) % s;  // a row's offset one tile later
  const bool vec_in = aligned16(in);
  float* v = reinterpret_cast<float*>(&sm.pre[0][0]);
  Piece piece[kRoundTiles];
  float carry = 0.0f;
  run_round_pipeline(
      StridedRounds{share.first / kTileElems, kRoundTiles, ceil_div(share.end, std::int64_t{kTileElems})},
      [&](const StridedRounds& t) {  // tiles t.round …: 512 contiguous bytes per load instruction
#pragma unroll
        for (int k = 0; k < kRoundTiles; ++k) {
          const PieceSource src = share_piece_source(share, (t.round + k) * kTileElems + lane * kPieceElems);
          piece[k] = src.valid <= 0 ? zero_piece() : load_piece<Cache::streaming>(in + src.offset, src.valid, vec_in);
        }
      },
      [&] {
#pragma unroll
        for (int k = 0; k < kRoundTiles; ++k) store_piece(sm.post[k], piece[k], lane);
      },
      [&](const StridedRounds& t) {
        const RowCursor at = row_cursor(t.round * kTileElems, segment_size);  // the round's first row
        cut_round<kRoundTiles>(sm.post, sm.pre, row_cursor_after(at, kTile * piece_row(lane), s).rem, step, s,
                               lane);                                    // 1.
        round_row_totals<kRoundTiles>(v, sm.post, sm.pre, e_window);     // 2.
        carry = round_row_carries<kRoundTiles>(                          // 3.
            v, row_cursor_after(at, 4 * kTile * lane, s), s, carry, lane,
            [&](int, float carry_in, float pre_total, float, int, int end, std::int64_t segment) {
              // a segment that ends in this row sums to carry_in + P; the warp writes its own only
              if (end < kTile && segment >= share.first_segment && segment < share.end_segment)
                out[segment] = carry_in + pre_total;
            });
      });  // (the pipeline's __syncwarp follows: V and the tiles are the next round's)
}

}  // namespace

cudaError_t launch_reduction_any_size(const __half* d_in, float* d_out, std::int64_t num_segments,
                                      std::int64_t segment_size, cudaStream_t stream) {
  if (segment_size <= kTile) return launch_reduction16(d_in, d_out, num_segments, segment_size, stream);
  const int grid =
      segment_grid_size(reinterpret_cast<const void*>(reduction_any_size_kernel), kWarps, num_segments, segment_size);
  reduction_any_size_kernel<<<grid, kWarps * 32, 0, stream>>>(d_in, d_out, num_segments, segment_size);
  return cudaGetLastError();
}

}  // namespace tcu::detail::reduce
