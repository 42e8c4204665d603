#pragma once
// Where the elements of a staged tile come from: the index maths of staging.cuh, on the host
// and the device, so the host tests check exactly what the kernels compute.
//
// Lane L of a warp owns the "piece" of tile elements [8L, 8L + 8): row L/2, columns
// 8·(L%2) … 8·(L%2)+7 of the row-major 16×16 tile.
#include <cstdint>

#include "common/int_math.hpp"
#include "common/tensor_core/constant_matrices.hpp"  // kTile, kTileElems

namespace tcu::tc {

inline constexpr int kWarpSize = 32;
// The block of the block-level kernels (Alg. 4 and 7, chapters 04 and 05): 8 warps.
inline constexpr int kBlockWarps = 8;
inline constexpr int kBlockThreads = kBlockWarps * kWarpSize;  // 256
inline constexpr int kPieceElems = 8;  // halves per lane per tile: one 16-byte vector
static_assert(kPieceElems * kWarpSize == kTileElems, "a warp's pieces are one tile");

TCU_HOST_DEVICE constexpr int piece_row(int lane) { return lane / 2; }
TCU_HOST_DEVICE constexpr int piece_col(int lane) { return (lane % 2) * kPieceElems; }

// A lane's piece: elements [offset, offset + valid) of the array, then zeros (valid <= 0: all
// zeros; valid >= 8: all eight from the array).
struct PieceSource {
  std::int64_t offset;
  std::int64_t valid;
};

// Row r of the tile = segment first_segment + r, columns [first_col, first_col + 16) of it.
TCU_HOST_DEVICE constexpr PieceSource segment_rows_source(std::int64_t num_segments, std::int64_t segment_size,
                                                          std::int64_t first_segment, std::int64_t first_col,
                                                          int lane) {
  const std::int64_t seg = first_segment + piece_row(lane);
  const std::int64_t col = first_col + piece_col(lane);
  if (seg >= num_segments || col >= segment_size) return PieceSource{0, 0};
  return PieceSource{seg * segment_size + col, segment_size - col};
}

// Tile element e = p[first + e], for an array of len elements.
TCU_HOST_DEVICE constexpr PieceSource contiguous_source(std::int64_t len, std::int64_t first, int lane) {
  const std::int64_t at = first + static_cast<std::int64_t>(lane) * kPieceElems;
  if (at >= len) return PieceSource{0, 0};
  return PieceSource{at, len - at};
}

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
