#pragma once
// The any-size kernels' work items (chapter 03's reduction and chapter 04's scan of segments of
// any size), on the host and the device so that the host tests check what the kernels do.
#include <cstdint>

#include "common/tensor_core/tile_geometry.hpp"

namespace tcu::tc {

// Whole segments split evenly over `warps` warps: warp w takes the segments [first_segment,
// end_segment) = [num_segments·w / warps, num_segments·(w+1) / warps), i.e. the elements
// [first, end) — empty (first == end) when there are fewer segments than warps.
struct WarpShare {
  std::int64_t first_segment, end_segment, first, end;
};
TCU_HOST_DEVICE constexpr WarpShare warp_segment_share(std::int64_t num_segments, std::int64_t segment_size,
                                                       std::int64_t w, std::int64_t warps) {
  const std::int64_t k0 = num_segments * w / warps, k1 = num_segments * (w + 1) / warps;
  return WarpShare{k0, k1, k0 * segment_size, k1 * segment_size};
}

// The lane load at element p of the warp's walk over aligned tiles, restricted to its share: none
// (valid 0) where it lies wholly outside [first, end); one that straddles `first` is loaded whole
// (the walk's row cuts mask what lies before it).
TCU_HOST_DEVICE constexpr PieceSource share_piece_source(const WarpShare& share, std::int64_t p) {
  if (p + kPieceElems <= share.first || p >= share.end) return PieceSource{0, 0};
  return PieceSource{p, share.end - p};
}

}  // namespace tcu::tc
