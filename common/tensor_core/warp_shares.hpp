#pragma once
// The any-size kernels' work items (chapter 03's reduction, chapter 04's scan of segments of any
// size): one contiguous run of whole segments per warp, and which lane loads of the warp's
// tile-aligned walk lie inside it. Host and device, so the host tests check what the kernels do.
#include <cstdint>

#include "common/tensor_core/tile_geometry.hpp"

namespace tcu::tc {

// Whole segments split evenly over `warps` warps (the any-size kernels): warp w takes segments
// [first_segment, end_segment) = [num_segments·w / warps, num_segments·(w+1) / warps), i.e. the
// elements [first, end) — empty (first == end) when there are fewer segments than warps.
struct WarpShare {
  std::int64_t first_segment, end_segment;
  std::int64_t first, end;
};
TCU_HOST_DEVICE constexpr WarpShare warp_segment_share(std::int64_t num_segments, std::int64_t segment_size,
                                                       std::int64_t w, std::int64_t warps) {
  const std::int64_t k0 = num_segments * w / warps, k1 = num_segments * (w + 1) / warps;
  return WarpShare{k0, k1, k0 * segment_size, k1 * segment_size};
}

// The piece of the tile-aligned walk at element p (lane's first element) restricted to a share:
// its offset and valid count, zeros wherever the piece lies wholly outside [first, end) (a piece
// that straddles `first` is loaded whole: the walk's row cuts mask what lies before it).
TCU_HOST_DEVICE constexpr PieceSource share_piece_source(const WarpShare& share, std::int64_t p) {
  if (p + kPieceElems <= share.first || p >= share.end) return PieceSource{0, 0};
  return PieceSource{p, share.end - p};
}

}  // namespace tcu::tc
