// Reduction of segments of any size by a walk on the CUDA cores (ours; docs/algorithms.md,
// "Segments of any size"). Lesson 12 cuts the tiles' rows at segment starts and sums them on
// tensor cores; its staging and cuts cost more than the MMAs save, and it stays near 62 % of
// the read stream at odd sizes. A sum needs one add per element, so here each warp walks its
// share of WHOLE segments in 512-element slices (lane L: the 16 consecutive elements
// [16L, 16L+16), two 16-byte loads; the next 2 slices' loads in flight while 2 are added):
//   1. a lane's place: r = the segment position of its first element (so its head, if any, is
//      at h = (s - r) mod s), kept by adding 512 mod s per slice: no division in the loop
//   2. a lane adds its elements before the head into A, the rest into B (s >= 17: at most one
//      head among 16 elements, and no segment lies wholly inside a lane)
//   3. a segmented shuffle scan over the lanes (restarting at lanes with a head) gives each lane
//      the sum before it since its segment's head, plus the carry from earlier slices; it looks
//      back only as many lanes as a segment can touch (3 for s = 17: 2 shuffle steps, not 5)
//   4. the lane holding a segment's last element (h - 1, or its last when the next lane starts
//      one) writes carry + A
// A slice without a segment's first or last element (long segments: most of them) only adds:
// each lane keeps its own sum, folded into the carry at the next slice with one. The work per
// slice with events is the same for 8 or 16 elements a lane: 16 halves it per element (17 …
// 255 on the H100: 2-6 % faster).
// Segments of 1 … 16 go to Reduction16 (a segment per row).
#include <algorithm>

#include "common/tensor_core/lane_scan.cuh"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"
#include "common/tensor_core/warp_shares.hpp"

namespace tcu::detail::reduce {
using namespace tc;
cudaError_t launch_reduction16(const __half*, float*, std::int64_t, std::int64_t, cudaStream_t);  // 01
namespace {

constexpr int kLanePieces = 2;                          // a lane's consecutive 8-element pieces per slice
constexpr int kLaneElems = kLanePieces * kPieceElems;   // 16
constexpr unsigned kSlice = kWarpSize * kLaneElems;     // 512
constexpr int kSlices = 2;                              // slices per step, loaded together
constexpr int kWalkWarps = 8, kWalkMinBlocks = 3;       // 24 warps per SM at least: 48 KB in flight
constexpr std::int64_t kStreamedSums = 64;              // segments shorter: their sums as streamed stores

__global__ void __launch_bounds__(kWalkWarps * kWarpSize, kWalkMinBlocks)
    reduction_walk_kernel(const __half* __restrict__ in, float* __restrict__ out, std::int64_t num_segments,
                          std::int64_t segment_size) {
  const int lane = lane_id();
  const WarpShare share = warp_segment_share(
      num_segments, segment_size, static_cast<std::int64_t>(blockIdx.x) * kWalkWarps + warp_in_block(),
      static_cast<std::int64_t>(gridDim.x) * kWalkWarps);
  if (share.first >= share.end) return;
  const unsigned s = static_cast<unsigned>(segment_size);
  const unsigned step_r = kSlice % s;
  const std::int64_t step_seg = kSlice / s;
  const bool vec_in = aligned16(in);
  // the sums of short segments as streamed stores (evict-first), measured faster on the H100 below
  // kStreamedSums; from 255 on, plain stores stay ahead (the chapter's results page)
  const bool stream_out = segment_size < kStreamedSums;
  // a segment touches at most `span` lanes of a slice: the scan looks back no further
  const int span = static_cast<int>(min(std::int64_t{kWarpSize}, (segment_size - 2) / kLaneElems + 2));

  // 1. the lane's first element, its segment and its position in it (one division per warp)
  const std::int64_t t0 = share.first / kSlice * kSlice;
  const std::int64_t p0 = t0 + lane * kLaneElems;
  std::int64_t seg = p0 / segment_size;
  unsigned r = static_cast<unsigned>(p0 - seg * segment_size);
  float carry = 0.0f;  // the open segment's sum before the slice (the same in every lane)
  float own = 0.0f;    // this lane's sum over the slices without events since the carry
  bool spread = false;  // own may be non-zero in several lanes

  constexpr int kPieces = kSlices * kLanePieces;
  Piece now[kPieces], next[kPieces];
  auto load = [&](Piece (&x)[kPieces], std::int64_t t) {  // a slice: 1 KB, two loads per lane
    const bool inside = vec_in && t >= share.first && t + kSlices * kSlice <= share.end;
#pragma unroll
    for (int k = 0; k < kPieces; ++k) {
      const std::int64_t p = t + k / kLanePieces * kSlice + lane * kLaneElems + k % kLanePieces * kPieceElems;
      if (inside) {
        x[k] = Piece{__ldcs(reinterpret_cast<const uint4*>(in + p))};
      } else {
        const PieceSource src = share_piece_source(share, p);
        x[k] = src.valid <= 0 ? zero_piece() : load_piece<Cache::streaming>(in + src.offset, src.valid, vec_in);
      }
    }
  };
  load(next, t0);
  for (std::int64_t t = t0; t < share.end; t += kSlices * kSlice) {
#pragma unroll
    for (int k = 0; k < kPieces; ++k) now[k] = next[k];
    if (t + kSlices * kSlice < share.end) load(next, t + kSlices * kSlice);
#pragma unroll
    for (int k = 0; k < kSlices; ++k) {
      // 2. A: the elements before the head at h (all 16 when h >= 16), B: from the head on
      const unsigned h = r == 0 ? 0u : s - r;
      float a = 0.0f, b = 0.0f;
#pragma unroll
      for (int q = 0; q < kLanePieces; ++q) {
        const __half2* x = reinterpret_cast<const __half2*>(&now[k * kLanePieces + q].v);
#pragma unroll
        for (int j = 0; j < kPieceElems / 2; ++j) {
          const float2 v = __half22float2(x[j]);
          const unsigned e = q * kPieceElems + 2 * j;
          if (e < h) a += v.x; else b += v.x;
          if (e + 1 < h) a += v.y; else b += v.y;
        }
      }
      if (!__any_sync(kFullMask, h <= kLaneElems)) {  // no lane holds a head or an end
        own += a;
        spread = true;
      } else {
        if (spread) {  // the lanes' own sums into the carry, in a fixed order
          float sum = own;
#pragma unroll
          for (int o = kWarpSize / 2; o > 0; o /= 2) sum += __shfl_down_sync(kFullMask, sum, o);
          carry += __shfl_sync(kFullMask, sum, 0);
          own = 0.0f;
          spread = false;
        }
        // 3. the segmented scan: lane L's part is B from its head on, or A (all) without one
        const bool head = h < kLaneElems;
        const float inc = segmented_lane_scan(head, head ? b : a, carry, lane, span);
        const float up = __shfl_up_sync(kFullMask, inc, 1);
        const float before = lane == 0 ? carry : up;  // the lane's segment before its first element
        carry = __shfl_sync(kFullMask, inc, kWarpSize - 1);
        // 4. the segment open at the lane's first element ends here when 1 <= h <= 16
        if (h >= 1 && h <= kLaneElems && seg >= share.first_segment && seg < share.end_segment) {
          if (stream_out) __stcs(out + seg, before + a);
          else out[seg] = before + a;
        }
      }
      // 1. the next slice: 512 elements on
      seg += step_seg;
      r += step_r;
      if (r >= s) r -= s, ++seg;
    }
  }
}

}  // namespace

cudaError_t launch_reduction_walk(const __half* d_in, float* d_out, std::int64_t num_segments,
                                  std::int64_t segment_size, cudaStream_t stream) {
  if (segment_size <= kTile) return launch_reduction16(d_in, d_out, num_segments, segment_size, stream);
  const int grid =
      segment_grid_size(reinterpret_cast<const void*>(reduction_walk_kernel), kWalkWarps, num_segments, segment_size);
  reduction_walk_kernel<<<grid, kWalkWarps * kWarpSize, 0, stream>>>(d_in, d_out, num_segments, segment_size);
  return cudaGetLastError();
}

}  // namespace tcu::detail::reduce
