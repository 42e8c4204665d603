#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include <cuda_fp16.h>

#include "common/data.cuh"
#include "common/reference.hpp"
#include "common/verify.hpp"

TEST_CASE("unit roundoff and ceil_log2") {
  CHECK(tcu::unit_roundoff(tcu::NumType::fp32) == std::ldexp(1.0, -24));
  CHECK(tcu::unit_roundoff(tcu::NumType::fp16) == std::ldexp(1.0, -11));
  CHECK(tcu::unit_roundoff(tcu::NumType::bf16) == std::ldexp(1.0, -8));
  CHECK(tcu::ceil_log2(1) == 0);
  CHECK(tcu::ceil_log2(2) == 1);
  CHECK(tcu::ceil_log2(3) == 2);
  CHECK(tcu::ceil_log2(256) == 8);
  CHECK(tcu::ceil_log2(257) == 9);
  CHECK(tcu::ceil_log2(std::uint64_t(1) << 28) == 28);
}

TEST_CASE("tolerances derive from depth and types") {
  const auto t = tcu::tolerance_for_sum(1024, tcu::NumType::fp32, tcu::NumType::fp32);
  CHECK(t.rel_to_magnitude == 2 * 10 * std::ldexp(1.0, -24));
  CHECK(t.rel_to_result == 0);
  const auto h = tcu::tolerance_for_sum(16, tcu::NumType::fp32, tcu::NumType::fp16);
  CHECK(h.rel_to_result == std::ldexp(1.0, -11));
  CHECK(h.rationale == "depth 4 in fp32, fp16 output");
  CHECK(tcu::exact_tolerance().exact());
  CHECK(tcu::exact_tolerance().bound(1e6, 1e9) == 0);
}

TEST_CASE("verify: exact comparison catches one ulp, reports the first mismatch") {
  std::vector<double> want = {1, 2, 3, 4};
  std::vector<float> got = {1, 2, std::nextafter(3.0f, 4.0f), 5};
  const auto r = tcu::verify(got.data(), want.data(), nullptr, 4, tcu::exact_tolerance());
  CHECK_FALSE(r.pass);
  CHECK(r.mismatches == 2);
  CHECK(r.first_bad == 2);
  CHECK(r.max_abs_err == 1.0);
  CHECK(r.max_rel_err == doctest::Approx(0.25));
  CHECK(r.summary().find("FAIL (2 of 4") == 0);
  got = {1, 2, 3, 4};
  const auto ok = tcu::verify(got.data(), want.data(), nullptr, 4, tcu::exact_tolerance());
  CHECK(ok.pass);
  CHECK(ok.summary().find("PASS") == 0);
}

TEST_CASE("verify: NaN and Inf never pass, whatever the tolerance") {
  tcu::Tolerance loose;
  loose.abs = 1e300;
  std::vector<double> want = {1, 1, 1};
  std::vector<double> got = {1, NAN, INFINITY};
  const auto r = tcu::verify(got.data(), want.data(), nullptr, 3, loose);
  CHECK_FALSE(r.pass);
  CHECK(r.non_finite == 2);
  CHECK(r.first_bad == 1);
}

TEST_CASE("poison_host makes NaN in every floating type, so unwritten outputs fail") {
  float f[3];
  double d[2];
  __half h[5];
  tcu::poison_host(f, sizeof f);
  tcu::poison_host(d, sizeof d);
  tcu::poison_host(h, sizeof h);
  for (float v : f) CHECK(std::isnan(v));
  for (double v : d) CHECK(std::isnan(v));
  for (__half v : h) CHECK(std::isnan(__half2float(v)));
  std::vector<double> want(5, 0.0);
  CHECK(tcu::verify(h, want.data(), nullptr, 5, tcu::exact_tolerance()).non_finite == 5);
}

TEST_CASE("verify: zero reference uses the magnitude for the relative error") {
  std::vector<double> want = {0.0}, mag = {8.0};
  std::vector<double> got = {1e-6};
  const auto r = tcu::verify(got.data(), want.data(), mag.data(), 1,
                             tcu::tolerance_for_sum(1 << 20, tcu::NumType::fp32, tcu::NumType::fp32));
  CHECK(r.pass);  // 1e-6 <= 2*20*2^-24*8 ~ 1.9e-5
  CHECK(r.max_rel_err == doctest::Approx(1e-6 / 8));
}

// The tolerance is not vacuous: an fp32 pairwise sum passes it, an fp16-accumulated sum of
// the same data does not (the failure Navarro et al. observed with fp16 accumulators).
namespace {
float pairwise_fp32(const std::vector<__half>& x, std::size_t lo, std::size_t hi) {
  if (hi - lo == 1) return __half2float(x[lo]);
  const std::size_t mid = lo + (hi - lo) / 2;
  return pairwise_fp32(x, lo, mid) + pairwise_fp32(x, mid, hi);
}
}  // namespace

TEST_CASE("fp32 pairwise sums pass the derived tolerance; fp16 accumulation fails it") {
  const std::size_t n = (1 << 16) + 3;  // odd size on purpose
  std::vector<__half> x(n);
  tcu::fill_host(x.data(), n, tcu::Dist::uniform, 7);
  const tcu::SumRef ref = tcu::reference_sum(x.data(), n);
  const auto tol = tcu::tolerance_for_sum(n, tcu::NumType::fp32, tcu::NumType::fp32);

  const float good = pairwise_fp32(x, 0, n);
  CHECK(tcu::verify(&good, &ref.sum, &ref.abs_sum, 1, tol).pass);

  __half bad = __float2half(0.0f);
  for (std::size_t i = 0; i < n; ++i) bad = __float2half(__half2float(bad) + __half2float(x[i]));
  const auto r = tcu::verify(&bad, &ref.sum, &ref.abs_sum, 1, tol);
  CHECK_FALSE(r.pass);
}
