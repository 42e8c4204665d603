#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <vector>

#include <cuda_fp16.h>

#include "common/data.cuh"
#include "common/reference.hpp"

TEST_CASE("dist names round-trip") {
  for (auto d : {tcu::Dist::uniform, tcu::Dist::normal, tcu::Dist::ones, tcu::Dist::integers})
    CHECK(tcu::parse_dist(tcu::dist_name(d)) == d);
  CHECK(tcu::parse_dist("integers") == tcu::Dist::integers);
  CHECK_FALSE(tcu::parse_dist("gauss").has_value());
}

TEST_CASE("data is a pure function of (dist, seed, index)") {
  const std::size_t n = 1001;
  std::vector<float> a(n), b(n), c(n), tail(n - 10);
  tcu::fill_host(a.data(), n, tcu::Dist::normal, 1);
  tcu::fill_host(b.data(), n, tcu::Dist::normal, 1);
  tcu::fill_host(c.data(), n, tcu::Dist::normal, 2);
  tcu::fill_host(tail.data(), n - 10, tcu::Dist::normal, 1, 10);
  CHECK(a == b);
  CHECK(a != c);
  for (std::size_t i = 10; i < n; ++i) CHECK(tail[i - 10] == a[i]);
}

TEST_CASE("distributions have the documented ranges and moments") {
  const std::size_t n = 200000;
  std::vector<double> u(n), g(n), k(n), o(n);
  tcu::fill_host(u.data(), n, tcu::Dist::uniform, 3);
  tcu::fill_host(g.data(), n, tcu::Dist::normal, 3);
  tcu::fill_host(k.data(), n, tcu::Dist::integers, 3);
  tcu::fill_host(o.data(), n, tcu::Dist::ones, 3);
  double su = 0, sg = 0, sg2 = 0;
  std::set<double> ints;
  for (std::size_t i = 0; i < n; ++i) {
    CHECK_UNARY(u[i] >= 0.0);
    CHECK_UNARY(u[i] < 1.0);
    CHECK(k[i] == std::floor(k[i]));
    CHECK(std::fabs(k[i]) <= tcu::kIntDistBound);
    CHECK(o[i] == 1.0);
    ints.insert(k[i]);
    su += u[i];
    sg += g[i];
    sg2 += g[i] * g[i];
  }
  CHECK(ints.size() == 2 * tcu::kIntDistBound + 1);
  CHECK(su / n == doctest::Approx(0.5).epsilon(0.01));
  CHECK(std::fabs(sg / n) < 0.01);
  CHECK(sg2 / n == doctest::Approx(1.0).epsilon(0.02));
}

TEST_CASE("fp16 data is the rounded double value") {
  std::vector<__half> h(257);
  tcu::fill_host(h.data(), h.size(), tcu::Dist::normal, 11);
  for (std::size_t i = 0; i < h.size(); ++i)
    CHECK(__half2float(h[i]) == __half2float(__float2half_rn(float(tcu::sample_value(tcu::Dist::normal, 11, i)))));
}

TEST_CASE("reference_sum is compensated") {
  const double x[] = {1e16, 1.0, -1e16, 1.0};
  const auto r = tcu::reference_sum(x, 4);
  CHECK(r.sum == 2.0);
  CHECK(r.abs_sum == doctest::Approx(2e16));
}

TEST_CASE("segmented sums and scans on exact integers, odd sizes") {
  const std::int64_t segs = 3, len = 5;
  std::vector<float> x(segs * len);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 7) - 3);  // -3..3
  std::vector<double> sums, abs_sums, inc, inc_abs, exc, exc_abs;
  tcu::reference_segmented_sum(x.data(), segs, len, sums, abs_sums);
  tcu::reference_segmented_scan(x.data(), segs, len, true, inc, inc_abs);
  tcu::reference_segmented_scan(x.data(), segs, len, false, exc, exc_abs);
  REQUIRE(sums.size() == 3);
  for (std::int64_t s = 0; s < segs; ++s) {
    double run = 0, run_abs = 0;
    for (std::int64_t j = 0; j < len; ++j) {
      const double v = x[s * len + j];
      CHECK(exc[s * len + j] == run);
      CHECK(exc_abs[s * len + j] == run_abs);
      run += v;
      run_abs += std::fabs(v);
      CHECK(inc[s * len + j] == run);
      CHECK(inc_abs[s * len + j] == run_abs);
    }
    CHECK(sums[s] == run);
    CHECK(abs_sums[s] == run_abs);
  }
  CHECK_THROWS(tcu::reference_segmented_sum(x.data(), 1, 0, sums, abs_sums));
  tcu::reference_segmented_sum(x.data(), 0, 4, sums, abs_sums);
  CHECK(sums.empty());
}

TEST_CASE("reference_gemm: known product, and layouts agree") {
  // A = [[1,2,3],[4,5,6]] (2x3), B = [[7,8],[9,10],[11,12]] (3x2): C = [[58,64],[139,154]]
  const float a_row[] = {1, 2, 3, 4, 5, 6};
  const float a_col[] = {1, 4, 2, 5, 3, 6};
  const float b_row[] = {7, 8, 9, 10, 11, 12};
  const float b_col[] = {7, 9, 11, 8, 10, 12};
  std::vector<double> c1, m1, c2, m2;
  tcu::reference_gemm(a_row, tcu::Layout::row_major, b_row, tcu::Layout::row_major, 2, 2, 3, c1, m1);
  tcu::reference_gemm(a_col, tcu::Layout::col_major, b_col, tcu::Layout::col_major, 2, 2, 3, c2, m2);
  CHECK(c1 == std::vector<double>{58, 64, 139, 154});
  CHECK(c1 == c2);
  CHECK(m1 == c1);  // all positive: |A||B| = AB
  const float a_neg[] = {-1, 2, 3, 4, 5, 6};
  tcu::reference_gemm(a_neg, tcu::Layout::row_major, b_row, tcu::Layout::row_major, 2, 2, 3, c1, m1);
  CHECK(c1[0] == 44);
  CHECK(m1[0] == 58);
}
