// Chapter 03, host tests (CI, no GPU): the argument rules of common/segments.hpp, the API's
// algorithm names and choices, and a CPU model of every formulation (P·A, V·Pᵀ, the 256N
// chains, 16N strided and coalesced, chained MMAs) against a plain FP64 sum.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "03_tcu_reduction/cpu_models.hpp"
#include "03_tcu_reduction/measurements.hpp"
#include "03_tcu_reduction/tcu_reduction.cuh"
#include "common/data.cuh"
#include "common/segments.hpp"

namespace cpu = tcu::reduction::cpu;

namespace {

// fp16-rounded samples as doubles (what the GPU reads).
std::vector<double> data(tcu::Dist dist, std::size_t n, std::uint64_t seed) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = tcu::to_double(tcu::from_double<__half>(tcu::sample_value(dist, seed, i)));
  return x;
}

double plain_sum(const std::vector<double>& x, std::size_t first, std::size_t len) {
  double s = 0;
  for (std::size_t i = first; i < first + len && i < x.size(); ++i) s += x[i];
  return s;
}
double abs_sum(const std::vector<double>& x, std::size_t first, std::size_t len) {
  double s = 0;
  for (std::size_t i = first; i < first + len && i < x.size(); ++i) s += std::fabs(x[i]);
  return s;
}

// The models multiply in FP64; the only rounding is the fp16 hi/lo split of an fp32 V
// (2^-22 relative each time it happens) and the fp32 partials of the recurrence (2^-24).
void check_close(double got, double want, double magnitude, double rel = 1e-5) {
  CHECK(std::fabs(got - want) <= rel * magnitude + 1e-12);
}

}  // namespace

TEST_CASE("check_segments: the argument rules every segmented API shares") {
  int dummy_in = 0, dummy_out = 0;
  const void* in = &dummy_in;
  void* out = &dummy_out;
  CHECK(tcu::check_segments(in, out, 10, 16).status == cudaSuccess);
  CHECK(tcu::check_segments(in, out, 10, 16).total_elements == 160);
  CHECK(tcu::check_segments(in, out, -1, 16).status == cudaErrorInvalidValue);
  CHECK(tcu::check_segments(in, out, 1, -16).status == cudaErrorInvalidValue);
  CHECK(tcu::check_segments(in, out, 1, 0).status == cudaErrorInvalidValue);
  CHECK(tcu::check_segments(nullptr, out, 1, 1).status == cudaErrorInvalidValue);
  CHECK(tcu::check_segments(in, nullptr, 1, 1).status == cudaErrorInvalidValue);
  CHECK(tcu::check_segments(in, out, std::numeric_limits<std::int64_t>::max() / 2, 3).status ==
        cudaErrorInvalidValue);
  const tcu::SegmentCheck none = tcu::check_segments(nullptr, nullptr, 0, 0);
  CHECK(none.status == cudaSuccess);
  CHECK(none.nothing_to_do);
  CHECK(tcu::check_segments(nullptr, nullptr, 0, -1).status == cudaErrorInvalidValue);
}

TEST_CASE("sweep list and throughput helpers") {
  const auto sizes = tcu::paper_segment_sizes(4, 24);
  REQUIRE(sizes.size() == 21);
  CHECK(sizes.front() == 16);
  CHECK(sizes.back() == (std::int64_t(1) << 24));
  CHECK(tcu::segment_count_for(std::int64_t(1) << 28, 16) == (std::int64_t(1) << 24));
  CHECK(tcu::segment_count_for(100, 0) == 0);
  CHECK(tcu::gelem_per_s(1000000000, 1000.0) == doctest::Approx(1.0));
  CHECK(tcu::read_gelem_ceiling(2994.0, 2) == doctest::Approx(1497.0));
  CHECK(tcu::percent_of(1347.3, 1497.0) == doctest::Approx(90.0).epsilon(1e-3));
  CHECK(tcu::percent_of(1.0, 0.0) == 0.0);
  CHECK(tcu::segmented_bytes(4, 16, 2, 1, 4) == doctest::Approx(4 * (32 + 4)));
}

TEST_CASE("algorithm names round-trip; auto never picks itself; supported sizes") {
  for (tcu::ReduceAlgorithm a : tcu::all_reduce_algorithms()) {
    const auto parsed = tcu::parse_reduce_algorithm(tcu::reduce_algorithm_name(a));
    REQUIRE(parsed.has_value());
    CHECK(*parsed == a);
    // every algorithm takes segments of one element, except the multi-segment one (16 … 2048)
    CHECK(tcu::reduce_algorithm_supports(a, 1) == (a != tcu::ReduceAlgorithm::reduction16_multisegment));
    CHECK_FALSE(tcu::reduce_algorithm_supports(a, 0));
  }
  CHECK_FALSE(tcu::parse_reduce_algorithm("nonsense").has_value());
  CHECK(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction16, 16));
  CHECK_FALSE(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction16, 17));
  CHECK(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction256, 256));
  CHECK_FALSE(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction256, 257));
  for (std::int64_t s : {1LL, 3LL, 16LL, 17LL, 255LL, 256LL, 4097LL, 1LL << 30}) {
    const tcu::ReduceAlgorithm a = tcu::reduce_algorithm_for(1, s);
    CHECK(a != tcu::ReduceAlgorithm::automatic);
    CHECK(tcu::reduce_algorithm_supports(a, s));
  }
  // every variant of the executable has a name and a finite error depth
  for (const std::string& name : tcu::reduction::segmented_variant_names()) {
    CHECK(tcu::reduction::error_depth(name, 1 << 20) > 0);
  }
}

TEST_CASE("fp32 -> fp16 hi + lo split keeps ~22 bits (absolute 2^-25 where lo is subnormal)") {
  for (float v : {0.0f, 1.0f, 3.14159265f, 1234.567f, -32767.9f, 1e-3f, 12345.678f, 0.1234567f}) {
    double hi = 0, lo = 0;
    const double back = cpu::split_hi_lo(v, &hi, &lo);
    CHECK(std::fabs(back - v) <= std::ldexp(std::fabs(v), -22) + std::ldexp(1.0, -25));
    CHECK(hi + lo == back);
  }
}

TEST_CASE("CPU model: Reduction16 (V = P·A, column c = segment c) gives the 16 segment sums") {
  for (tcu::Dist dist : {tcu::Dist::uniform, tcu::Dist::normal, tcu::Dist::integers}) {
    const auto x = data(dist, 256, 7);
    const auto v = cpu::reduction16(x);
    REQUIRE(v.size() == 16);
    for (int c = 0; c < 16; ++c) CHECK(v[c] == plain_sum(x, 16 * c, 16));  // exact: 16 fp16 values
  }
}

TEST_CASE("CPU model: Reduction256 (P·A, then V·Pᵀ) and the two Reduction256N chains") {
  for (tcu::Dist dist : {tcu::Dist::uniform, tcu::Dist::normal, tcu::Dist::integers}) {
    const auto x = data(dist, 256, 11);
    check_close(cpu::reduction256(x), plain_sum(x, 0, 256), abs_sum(x, 0, 256));
    for (std::size_t n : {std::size_t(1), std::size_t(255), std::size_t(257), std::size_t(4097)}) {
      const auto y = data(dist, n, 13 + n);
      const double want = plain_sum(y, 0, n), mag = abs_sum(y, 0, n);
      check_close(cpu::reduction256n_inefficient(y), want, mag);
      check_close(cpu::reduction256n_efficient(y), want, mag);
      if (dist == tcu::Dist::integers) {  // integers: the hi/lo split is exact
        CHECK(cpu::reduction256n_efficient(y) == want);
        CHECK(cpu::reduction256n_inefficient(y) == want);
      }
    }
  }
}

TEST_CASE("CPU model: Reduction16N strided and coalesced (Alg. 3) over sizes that are and are not multiples of 16") {
  for (long long s : {1LL, 3LL, 16LL, 17LL, 48LL, 255LL, 256LL, 257LL, 1000LL, 4097LL}) {
    for (tcu::Dist dist : {tcu::Dist::normal, tcu::Dist::integers}) {
      const auto x = data(dist, static_cast<std::size_t>(16 * s), 17 + s);
      const auto strided = cpu::reduction16n_strided(x, s);
      const auto coalesced = cpu::reduction16n_coalesced(x, s);
      for (int c = 0; c < 16; ++c) {
        const double want = plain_sum(x, c * s, s), mag = abs_sum(x, c * s, s);
        check_close(strided[c], want, mag);
        check_close(coalesced[c], want, mag);
        if (dist == tcu::Dist::integers) {
          CHECK(strided[c] == want);
          CHECK(coalesced[c] == want);
        }
      }
    }
  }
}

TEST_CASE("CPU model: Reduction16 multi-segment (V = Σ E_k·A_k, R = V·M) for segments of 16 … 2048") {
  for (long long s = 16; s <= 2048; s *= 2) {
    for (tcu::Dist dist : {tcu::Dist::normal, tcu::Dist::uniform, tcu::Dist::integers}) {
      // 37 segments: the last round is partly past the array (zero padding)
      const long long ns = 37;
      const auto x = data(dist, static_cast<std::size_t>(ns * s), 29 + s);
      const auto got = cpu::reduction16_multisegment(x, s);
      REQUIRE(static_cast<long long>(got.size()) == ns);
      for (long long c = 0; c < ns; ++c) {
        const double want = plain_sum(x, c * s, s), mag = abs_sum(x, c * s, s);
        CAPTURE(s);
        CAPTURE(c);
        check_close(got[c], want, mag);
        if (dist == tcu::Dist::integers) CHECK(got[c] == want);
      }
    }
  }
  CHECK(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction16_multisegment, 16));
  CHECK(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction16_multisegment, 2048));
  CHECK_FALSE(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction16_multisegment, 8));
  CHECK_FALSE(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction16_multisegment, 48));
  CHECK_FALSE(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction16_multisegment, 4096));
}

TEST_CASE("CPU model: chained MMAs (1·M chains, C·1 puts the total in every element, recurrence)") {
  for (int r : {1, 4, 16}) {
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(100000)}) {
      const auto x = data(tcu::Dist::uniform, n, 23 + n);
      const double got = cpu::chained_recurrence(x, r);
      CHECK(got != -1e300);  // all elements of C·1 equal
      check_close(got, plain_sum(x, 0, n), abs_sum(x, 0, n));
    }
  }
}
