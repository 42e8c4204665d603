#pragma once
// The walks' scan across the lanes (chapter 03's reduction_walk, chapter 04's scan_walk, chapter
// 05's ragged walks): each lane holds one part of a slice, and a segment's sum runs from the lane
// that holds its head (first element) on.
#include "common/tensor_core/tile_geometry.hpp"

namespace tcu::tc {

// `with_heads` bit L: lane L's part starts at a head (the sum of its elements from its last head
// on), else it sums all of its elements. Returns the sum of the parts from the nearest lane at or
// before L that holds a head (lane 0 if none) up to L's own. A segment touches at most `span`
// lanes, so the scan looks back no further (span: the same in every lane).
__device__ __forceinline__ float flagged_lane_scan(unsigned with_heads, float part, int lane, int span = kWarpSize) {
  const unsigned upto = with_heads & (0xffffffffu >> (31 - lane));  // lanes 0 … L
  const int since_head = lane - (upto ? 31 - __clz(upto) : 0);      // lanes after the head's
  float inc = part;
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2) {
    if (d >= span) break;
    const float o = __shfl_up_sync(kFullMask, inc, d);
    if (since_head >= d) inc += o;
  }
  return inc;
}

// The same with a lane's own flag, and `carry` (the segment open before the slice) added where no
// lane up to L holds a head.
__device__ __forceinline__ float segmented_lane_scan(bool head, float part, float carry, int lane,
                                                     int span = kWarpSize) {
  const unsigned with_heads = __ballot_sync(kFullMask, head);
  const float inc = flagged_lane_scan(with_heads, part, lane, span);
  return with_heads & (0xffffffffu >> (31 - lane)) ? inc : carry + inc;  // no head up to L: the open segment runs on
}

}  // namespace tcu::tc
