#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "common/stats.hpp"

TEST_CASE("summarize: median of odd and even counts, min, max, mean") {
  auto a = tcu::summarize({5.0, 1.0, 3.0});
  CHECK(a.median_ms == 3.0);
  CHECK(a.min_ms == 1.0);
  CHECK(a.max_ms == 5.0);
  CHECK(a.mean_ms == doctest::Approx(3.0));
  CHECK(a.samples == 3);
  auto b = tcu::summarize({4.0, 1.0, 2.0, 100.0});
  CHECK(b.median_ms == 3.0);  // robust to the outlier
  CHECK(b.mean_ms == doctest::Approx(26.75));
  CHECK(tcu::summarize({0.25}).median_ms == 0.25);
}

TEST_CASE("summarize rejects empty and invalid samples") {
  CHECK_THROWS_AS(tcu::summarize({}), std::invalid_argument);
  CHECK_THROWS_AS(tcu::summarize({1.0, NAN}), std::invalid_argument);
  CHECK_THROWS_AS(tcu::summarize({-1.0}), std::invalid_argument);
  CHECK_THROWS_AS(tcu::summarize({INFINITY}), std::invalid_argument);
}
