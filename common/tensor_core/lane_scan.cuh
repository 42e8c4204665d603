#pragma once
// The walks' scan across the lanes (chapter 03's reduction_walk, chapter 04's scan_walk; chapter
// 05's ragged walks keep their own, with runs in shared memory): each lane holds one part of a
// slice, and a segment's sum runs from the lane that holds its head (first element) on.
#include "common/tensor_core/tile_geometry.hpp"

namespace tcu::tc {

// Lane L's `part`: the sum of its elements from its head on when it holds a head (`head`), else
// of all of them. Returns the sum of the parts from the nearest lane at or before L that holds a
// head, up to L's own; `carry` (the segment open before the slice) is added where no lane up to L
// holds one. A segment touches at most `span` lanes, so the scan looks back no further (span: the
// same in every lane).
__device__ __forceinline__ float segmented_lane_scan(bool head, float part, float carry, int lane,
                                                     int span = kWarpSize) {
  const unsigned upto = __ballot_sync(kFullMask, head) & (0xffffffffu >> (31 - lane));  // lanes 0 … L
  const int head_lane = upto ? 31 - __clz(upto) : -1;
  float inc = part;
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2) {
    if (d >= span) break;
    const float o = __shfl_up_sync(kFullMask, inc, d);
    if (lane - d >= head_lane && lane >= d) inc += o;
  }
  return head_lane < 0 ? carry + inc : inc;  // no head in lanes 0 … L: the open segment runs on
}

}  // namespace tcu::tc
