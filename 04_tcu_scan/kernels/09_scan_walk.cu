// Scan of segments of any size by a walk on the CUDA cores (ours; docs/algorithms.md, "Segments
// of any size"). Lesson 8 cuts the tiles' rows at segment starts and scans them on tensor cores
// (A_pre·U, A_post·U): the staging, the cuts and WMMA's accumulator layout (results reach a
// lane's 8 consecutive elements only through shared memory) cost more than the 8 adds they save.
// Here each warp walks its share of WHOLE segments in 256-element slices (lane L: elements
// [8L, 8L+8), one 16-byte load; the next 4 slices' loads in flight while 4 are scanned):
//   1. a lane's place: r = the segment position of its first element (its head, if any, at
//      h = (s - r) mod s), kept by adding 256 mod s per slice: no division in the loop
//   2. a lane's sums before its head (A) and from it (B) (s >= 9: at most one head in 8)
//   3. a segmented shuffle scan over the lanes (restarting at lanes with a head) gives each lane
//      the sum before its first element since its segment's head, plus the carry of earlier slices
//   4. the lane's 8 results: that sum + its own elements, restarting at the head; out through
//      the warp's scratch as whole 512-byte rows of stores (or 128-byte rows for fp16)
// Exclusive: each result the one before it, 0 at a head. Segments of 1 … 8 go to Scan16.
#include <algorithm>

#include "common/tensor_core/lane_scan.cuh"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"
#include "common/tensor_core/warp_shares.hpp"

namespace tcu::detail::scan {
using namespace tc;
template <class OutT>  // 01_scan16.cu
cudaError_t launch_scan16(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                          bool inclusive, cudaStream_t stream);
namespace {

constexpr int kSlices = 4;                            // slices per step, loaded together
constexpr int kWalkWarps = 8, kWalkMinBlocks = 3;     // 24 warps per SM at least: 48 KB of loads in flight
constexpr unsigned kSlice = kWarpSize * kPieceElems;  // 256

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kWalkWarps * kWarpSize, kWalkMinBlocks)
    scan_walk_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t num_segments,
                     std::int64_t segment_size) {
  __shared__ __align__(16) OutT scratch[kWalkWarps][kSlice];  // a warp's results on their way out
  const int lane = lane_id();
  OutT* sc = scratch[warp_in_block()];
  const WarpShare share = warp_segment_share(
      num_segments, segment_size, static_cast<std::int64_t>(blockIdx.x) * kWalkWarps + warp_in_block(),
      static_cast<std::int64_t>(gridDim.x) * kWalkWarps);
  if (share.first >= share.end) return;
  const unsigned s = static_cast<unsigned>(segment_size), step_r = kSlice % s;
  const bool vec_in = aligned16(in), vec_out = aligned16(out);

  // 1. the lane's first element and its position in its segment (one division per warp)
  const std::int64_t t0 = share.first / kSlice * kSlice;
  unsigned r = static_cast<unsigned>((t0 + lane * kPieceElems) % segment_size);
  float carry = 0.0f;  // the open segment's sum before the slice (the same in every lane)

  Piece now[kSlices], next[kSlices];
  auto load = [&](Piece (&x)[kSlices], std::int64_t t) {  // 512 contiguous bytes per instruction
#pragma unroll
    for (int k = 0; k < kSlices; ++k) {
      const PieceSource src = share_piece_source(share, t + k * kSlice + lane * kPieceElems);
      x[k] = src.valid <= 0 ? zero_piece() : load_piece<Cache::streaming>(in + src.offset, src.valid, vec_in);
    }
  };
  load(next, t0);
  for (std::int64_t t = t0; t < share.end; t += kSlices * kSlice) {
#pragma unroll
    for (int k = 0; k < kSlices; ++k) now[k] = next[k];
    if (t + kSlices * kSlice < share.end) load(next, t + kSlices * kSlice);
#pragma unroll
    for (int k = 0; k < kSlices; ++k) {
      // 2. A: the elements before the head at h (all 8 when h >= 8), B: from the head on
      const unsigned h = r == 0 ? 0u : s - r;
      const __half2* x2 = reinterpret_cast<const __half2*>(&now[k].v);
      float v[kPieceElems];
#pragma unroll
      for (int j = 0; j < kPieceElems / 2; ++j) {
        const float2 f = __half22float2(x2[j]);
        v[2 * j] = f.x, v[2 * j + 1] = f.y;
      }
      float a = 0.0f, b = 0.0f;
#pragma unroll
      for (int j = 0; j < kPieceElems; ++j) {
        if (unsigned(j) < h) a += v[j]; else b += v[j];
      }
      // 3. the segmented scan: lane L's part is B from its head on, or A (all) without one
      const bool head = h < kPieceElems;
      const float inc = segmented_lane_scan(head, head ? b : a, carry, lane);
      const float up = __shfl_up_sync(kFullMask, inc, 1);
      float run = lane == 0 ? carry : up;  // the lane's segment before its first element
      carry = __shfl_sync(kFullMask, inc, kWarpSize - 1);
      // 4. the lane's results, restarting at its head; to the scratch, then out in whole rows
      alignas(16) OutT o[kPieceElems];
#pragma unroll
      for (int j = 0; j < kPieceElems; ++j) {
        if (unsigned(j) == h) run = 0.0f;
        if (!kInclusive) o[j] = from_float<OutT>(run);
        run += v[j];
        if (kInclusive) o[j] = from_float<OutT>(run);
      }
      constexpr int kVecs = static_cast<int>(kPieceElems * sizeof(OutT) / 16);  // 16-byte vectors per lane
#pragma unroll
      for (int q = 0; q < kVecs; ++q) reinterpret_cast<uint4*>(sc)[lane * kVecs + q] = reinterpret_cast<const uint4*>(o)[q];
      __syncwarp();
      const std::int64_t p = t + k * kSlice;  // the slice's first element
      if (p >= share.first && p + kSlice <= share.end && vec_out) {
#pragma unroll
        for (int q = 0; q < kVecs; ++q)
          __stcs(reinterpret_cast<uint4*>(out + p) + q * kWarpSize + lane, reinterpret_cast<const uint4*>(sc)[q * kWarpSize + lane]);
      } else {
#pragma unroll
        for (int j = 0; j < kPieceElems; ++j) {
          const std::int64_t e = p + j * kWarpSize + lane;
          if (e >= share.first && e < share.end) out[e] = sc[j * kWarpSize + lane];
        }
      }
      __syncwarp();  // the scratch is the next slice's
      // 1. the next slice: 256 elements on
      r += step_r;
      if (r >= s) r -= s;
    }
  }
}

}  // namespace

template <class OutT>
cudaError_t launch_scan_walk(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                             bool inclusive, cudaStream_t stream) {
  if (segment_size < 9) return launch_scan16(in, out, num_segments, segment_size, inclusive, stream);
  auto* k = inclusive ? scan_walk_kernel<OutT, true> : scan_walk_kernel<OutT, false>;
  const int grid = segment_grid_size(reinterpret_cast<const void*>(k), kWalkWarps, num_segments, segment_size);
  k<<<grid, kWalkWarps * kWarpSize, 0, stream>>>(in, out, num_segments, segment_size);
  return cudaGetLastError();
}

template cudaError_t launch_scan_walk(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_scan_walk(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::scan
