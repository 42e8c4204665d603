#pragma once
// A tile whose row r is segment first_segment + r (Reduction16 and its
// variants, chapter 03): columns [first_col, first_col + 16) of each segment;
// zeros past the last segment or a segment's end.
#include <cstdint>

#include "common/tensor_core/staging.cuh"

namespace tcu::tc {

template <Cache kCache = Cache::read_only>
__device__ __forceinline__ Piece load_segment_rows(
    const __half *x, std::int64_t num_segments, std::int64_t segment_size,
    std::int64_t first_segment, std::int64_t first_col, int lane) {
  const PieceSource src = segment_rows_source(num_segments, segment_size,
                                              first_segment, first_col, lane);
  if (src.valid <= 0)
    return zero_piece();
  return load_piece<kCache>(x + src.offset, src.valid);
}

} // namespace tcu::tc
