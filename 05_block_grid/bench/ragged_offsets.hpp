#pragma once
// The ragged-segment distributions of `05_block_grid --ragged` and of the tests: CUB-style
// begin/end offsets built on the host from a fixed seed (header-only, no CUDA).
//   fixed_17, fixed_100, fixed_1000   every segment that long, back to back
//   uniform_1_32, uniform_1_2000      lengths uniform in [1, 32] or [1, 2000], back to back
//   zipf                              P(length L) ∝ L^-1.5, 1 <= L <= 2^20, back to back
//   one_huge_many_tiny                one segment of n/2 in the middle, the rest 1 … 8 long
//   with_empty                        lengths uniform in [0, 64] (empty ones included), each
//                                     followed by a gap of 0 … 3 elements that no segment covers
// Segments never pass n; the last one may be cut short.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace tcu::bench::device {

struct RaggedSegments {
  std::vector<std::int64_t> begin, end;
  std::int64_t n = 0;            // the array the segments lie in (elements)
  std::int64_t covered = 0;      // elements inside segments
  std::int64_t max_length = 0;
  double mean_length() const { return begin.empty() ? 0.0 : static_cast<double>(covered) / begin.size(); }
  std::int64_t num_segments() const { return static_cast<std::int64_t>(begin.size()); }
};

inline std::vector<std::string> ragged_distributions() {
  return {"fixed_17", "fixed_100", "fixed_1000", "uniform_1_32", "uniform_1_2000", "zipf", "one_huge_many_tiny",
          "with_empty"};
}

inline RaggedSegments make_ragged_segments(const std::string& dist, std::int64_t n, std::uint64_t seed) {
  if (n < 1) throw std::invalid_argument("make_ragged_segments: n must be >= 1");
  RaggedSegments r;
  r.n = n;
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](std::int64_t lo, std::int64_t hi) {  // [lo, hi]
    return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
  };
  auto add = [&r](std::int64_t b, std::int64_t len) {
    r.begin.push_back(b);
    r.end.push_back(b + len);
    r.covered += len;
    r.max_length = std::max(r.max_length, len);
  };
  // Back-to-back segments of lengths from `next` over [from, to).
  auto fill = [&](std::int64_t from, std::int64_t to, auto&& next) {
    for (std::int64_t at = from; at < to;) {
      const std::int64_t len = std::min(next(), to - at);
      add(at, len);
      at += len;
    }
  };
  if (dist.rfind("fixed_", 0) == 0) {
    const std::int64_t len = std::stoll(dist.substr(6));
    if (len < 1) throw std::invalid_argument("make_ragged_segments: bad fixed length");
    for (std::int64_t s = 0; s < n / len; ++s) add(s * len, len);
  } else if (dist == "uniform_1_32") {
    fill(0, n, [&] { return uniform(1, 32); });
  } else if (dist == "uniform_1_2000") {
    fill(0, n, [&] { return uniform(1, 2000); });
  } else if (dist == "zipf") {
    // Continuous Pareto with P(X > x) = x^-0.5 (density ∝ x^-1.5), truncated at 2^20.
    fill(0, n, [&] {
      for (;;) {
        const double u = (static_cast<double>(rng() >> 11) + 1.0) * 0x1p-53;  // (0, 1]
        const double x = std::floor(1.0 / (u * u));
        if (x <= 1048576.0) return static_cast<std::int64_t>(x);
      }
    });
  } else if (dist == "one_huge_many_tiny") {
    const std::int64_t huge = n / 2, first = (n - huge) / 2;
    fill(0, first, [&] { return uniform(1, 8); });
    if (huge > 0) add(first, huge);
    fill(first + huge, n, [&] { return uniform(1, 8); });
  } else if (dist == "with_empty") {
    for (std::int64_t at = 0; at < n;) {
      const std::int64_t len = std::min(uniform(0, 64), n - at);
      add(at, len);
      at += len + uniform(0, 3);
    }
  } else {
    throw std::invalid_argument("make_ragged_segments: unknown distribution '" + dist + "'");
  }
  return r;
}

}  // namespace tcu::bench::device
