// The benchmarks' segment-size sweep (common/segments.hpp): every power of two in range, every
// odd size strictly inside it, the whole array last, ascending and each once.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/segments.hpp"

TEST_CASE("sweep_segment_sizes: the powers, every odd size inside the range, then n") {
  const std::int64_t n = std::int64_t(1) << 28;
  const std::vector<std::int64_t> s = tcu::sweep_segment_sizes(4, 16, n, true);
  CHECK(std::is_sorted(s.begin(), s.end()));
  CHECK(std::adjacent_find(s.begin(), s.end()) == s.end());
  for (int e = 4; e <= 16; ++e) CHECK(std::count(s.begin(), s.end(), std::int64_t(1) << e) == 1);
  for (std::int64_t odd : tcu::kOddSegmentSizes) {
    CAPTURE(odd);
    const bool inside = odd > 16 && odd < 65536;
    CHECK(std::count(s.begin(), s.end(), odd) == (inside ? 1 : 0));
  }
  CHECK(s.back() == n);
  CHECK(s.size() == 13 + 12 + 1);
}

TEST_CASE("sweep_segment_sizes: a narrow range keeps only the odd sizes inside it") {
  const std::vector<std::int64_t> s = tcu::sweep_segment_sizes(8, 10, 4096, false);
  CHECK(s == std::vector<std::int64_t>{256, 257, 512, 1000, 1024});
  CHECK(tcu::sweep_segment_sizes(12, 4, 1 << 20, true).empty());
}

TEST_CASE("any_size_test_sizes: 1 … 40, the odd sweep sizes and 256, ascending, each once") {
  const std::vector<std::int64_t> s = tcu::any_size_test_sizes();
  CHECK(std::is_sorted(s.begin(), s.end()));
  CHECK(std::adjacent_find(s.begin(), s.end()) == s.end());
  for (std::int64_t i = 1; i <= 40; ++i) CHECK(std::count(s.begin(), s.end(), i) == 1);
  for (std::int64_t odd : tcu::kOddSegmentSizes) CHECK(std::count(s.begin(), s.end(), odd) == 1);
  CHECK(std::count(s.begin(), s.end(), 256) == 1);
}
