#pragma once
// Segmented arrays: what every segmented API of the tutorial (reduction, scan) shares on the
// host side. Header-only.
//
// A segmented array is num_segments × segment_size contiguous elements; segment s is
// [s·segment_size, (s+1)·segment_size). Use it like this in a public API:
//
//   cudaError_t tcu::segmented_xxx(const __half* d_in, float* d_out, std::int64_t num_segments,
//                                  std::int64_t segment_size, cudaStream_t stream) {
//     const tcu::SegmentCheck check = tcu::check_segments(d_in, d_out, num_segments, segment_size);
//     if (check.status != cudaSuccess) return check.status;   // cudaErrorInvalidValue
//     if (check.nothing_to_do) return cudaSuccess;            // zero segments: no launch at all
//     ... launch for check.total_elements ...
//   }
//
// and in a benchmark: `paper_segment_sizes(4, 24)` is the sweep 2^4 … 2^24 with n fixed
// (Dakkak Fig. 10) and `segment_count_for(n, s)` the count of each point (throughput.hpp turns
// a median time into the table's throughput columns).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/int_math.hpp"

namespace tcu {

struct SegmentCheck {
  cudaError_t status = cudaSuccess;  // cudaErrorInvalidValue when the arguments are invalid
  bool nothing_to_do = false;        // zero segments: valid, nothing is read or written
  std::int64_t total_elements = 0;   // num_segments × segment_size (when status is success)
  std::string reason;                // why the arguments are invalid (for messages and tests)
};

// The argument rules of every segmented API:
//   - negative num_segments or segment_size                → invalid
//   - segment_size 0 (with segments to do)                 → invalid (an empty segment has no
//                                                             element to reduce or scan; ask for
//                                                             zero segments instead)
//   - num_segments × segment_size overflows int64          → invalid
//   - null input or output pointer with work to do         → invalid
//   - num_segments == 0                                    → success, nothing done (pointers may
//                                                             be null, segment_size is not checked
//                                                             beyond being non-negative)
inline SegmentCheck check_segments(const void* d_in, const void* d_out, std::int64_t num_segments,
                                   std::int64_t segment_size) {
  SegmentCheck c;
  auto invalid = [&c](const char* why) {
    c.status = cudaErrorInvalidValue;
    c.reason = why;
    return c;
  };
  if (num_segments < 0) return invalid("num_segments is negative");
  if (segment_size < 0) return invalid("segment_size is negative");
  if (num_segments == 0) {
    c.nothing_to_do = true;
    return c;
  }
  if (segment_size == 0) return invalid("segment_size is 0 (use num_segments = 0 for no work)");
  if (num_segments > std::numeric_limits<std::int64_t>::max() / segment_size)
    return invalid("num_segments * segment_size overflows int64");
  if (d_in == nullptr) return invalid("input pointer is null");
  if (d_out == nullptr) return invalid("output pointer is null");
  c.total_elements = num_segments * segment_size;
  return c;
}

// The paper's sweep: segment sizes 2^lo, 2^(lo+1), …, 2^hi (lo <= hi, both in [0, 62]).
inline std::vector<std::int64_t> paper_segment_sizes(int lo, int hi) {
  std::vector<std::int64_t> out;
  for (int e = lo; e <= hi && e <= 62; ++e)
    if (e >= 0) out.push_back(std::int64_t(1) << e);
  return out;
}

// Sizes that are not powers of two (odd, just off a tile, primes-ish), swept next to the powers.
inline constexpr std::int64_t kOddSegmentSizes[] = {17, 24, 48, 96, 100, 200, 255, 257, 1000, 3000, 5000, 12345};

// The segment sizes the any-size kernels are tested at: every size 1 … 40 (each phase of a
// short segment against a 16-element row), primes around the tile and round sizes, 256 and every
// size of kOddSegmentSizes; ascending, each once.
inline std::vector<std::int64_t> any_size_test_sizes() {
  std::vector<std::int64_t> out;
  for (std::int64_t s = 1; s <= 40; ++s) out.push_back(s);
  for (std::int64_t s : {41, 97, 101, 127, 251, 256, 509, 1009, 4099, 8191}) out.push_back(s);
  for (std::int64_t s : kOddSegmentSizes)
    if (s > 40) out.push_back(s);
  std::sort(out.begin(), out.end());
  return out;
}

// The benchmarks' sweep: 2^lo … 2^hi, the odd sizes between 2^lo and 2^hi, and n itself (one
// segment: the whole array) when whole_array is set; ascending, each once.
inline std::vector<std::int64_t> sweep_segment_sizes(int lo, int hi, std::int64_t n, bool whole_array) {
  std::vector<std::int64_t> out = paper_segment_sizes(lo, hi);
  if (out.empty()) return out;
  const std::int64_t smallest = out.front(), largest = out.back();  // before the odd sizes join
  for (std::int64_t s : kOddSegmentSizes)
    if (s > smallest && s < largest) out.push_back(s);
  if (whole_array && n > 0) out.push_back(n);
  std::vector<std::int64_t> sorted;
  for (std::int64_t s : out) {
    std::size_t i = 0;
    while (i < sorted.size() && sorted[i] < s) ++i;
    if (i == sorted.size() || sorted[i] != s) sorted.insert(sorted.begin() + static_cast<std::ptrdiff_t>(i), s);
  }
  return sorted;
}

// Segments of `segment_size` that fit in n elements (the sweep keeps n fixed: n / segment_size).
inline std::int64_t segment_count_for(std::int64_t n, std::int64_t segment_size) {
  return segment_size > 0 ? n / segment_size : 0;
}

}  // namespace tcu
