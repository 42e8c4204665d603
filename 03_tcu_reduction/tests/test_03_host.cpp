// Chapter 03, host tests (CI, no GPU): the argument rules of common/segments.hpp, the API's
// algorithm names and choices, and a CPU model of every formulation (P·A, V·Pᵀ, the 256N
// chains, 16N strided and coalesced, chained MMAs) against a plain FP64 sum.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "03_tcu_reduction/bench/baselines.cuh"
#include "03_tcu_reduction/bench/cpu_models.hpp"
#include "03_tcu_reduction/bench/energy_counter.hpp"
#include "03_tcu_reduction/bench/sweep.hpp"
#include "03_tcu_reduction/kernels/launchers.hpp"
#include "03_tcu_reduction/tcu_reduction.cuh"
#include "common/data.cuh"
#include "common/segments.hpp"
#include "common/tensor_core/chunks.hpp"
#include "common/throughput.hpp"
#include "common/walk_model.hpp"

namespace cpu = tcu::bench::reduce::cpu;

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
  CHECK(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction_any_size, 17));
  CHECK(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction_any_size, 12345));
  CHECK(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction_any_size, std::int64_t(1) << 30));
  CHECK_FALSE(tcu::reduce_algorithm_supports(tcu::ReduceAlgorithm::reduction_any_size, (std::int64_t(1) << 30) + 1));
  for (std::int64_t s : {std::int64_t(1), std::int64_t(3), std::int64_t(16), std::int64_t(17), std::int64_t(255),
                         std::int64_t(256), std::int64_t(4097), std::int64_t(1) << 30}) {
    const tcu::ReduceAlgorithm a = tcu::choose_reduce_algorithm(1, s);
    CHECK(a != tcu::ReduceAlgorithm::automatic);
    CHECK(tcu::reduce_algorithm_supports(a, s));
  }
  // every variant of the executable has a name and a finite, positive tolerance
  tcu::bench::reduce::CubTemp temp;  // allocates nothing until a baseline runs
  for (const tcu::bench::reduce::SegmentedVariant& v : tcu::bench::reduce::segmented_variants(temp)) {
    CAPTURE(v.name);
    const tcu::Tolerance t = tcu::bench::reduce::variant_tolerance(v, 7, 1 << 20);
    CHECK(t.rel_to_magnitude > 0);
    CHECK(std::isfinite(t.rel_to_magnitude));
  }
  CHECK(tcu::bench::reduce::segmented_variant_names().size() ==
        tcu::all_reduce_algorithms().size() - 1 + 1 + tcu::bench::reduce::baseline_names().size());
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
  for (std::int64_t s : {1, 3, 16, 17, 48, 255, 256, 257, 1000, 4097}) {
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
  for (std::int64_t s = 16; s <= 2048; s *= 2) {
    for (tcu::Dist dist : {tcu::Dist::normal, tcu::Dist::uniform, tcu::Dist::integers}) {
      // 37 segments: the last round is partly past the array (zero padding)
      const std::int64_t ns = 37;
      const auto x = data(dist, static_cast<std::size_t>(ns * s), 29 + s);
      const auto got = cpu::reduction16_multisegment(x, s);
      REQUIRE(static_cast<std::int64_t>(got.size()) == ns);
      for (std::int64_t c = 0; c < ns; ++c) {
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

namespace {
namespace r = tcu::detail::reduce;
namespace tc = tcu::tc;
constexpr int kH100Sms = 132;
// The warp chunks of the split kernels start at a tile (03, inefficient) or a round of 8 tiles
// (04, efficient); the block level's chunks (05) are at most 2^18, whole block tiles of 16384.
constexpr std::int64_t kInefficientGranule = 256, kEfficientGranule = 2048;
constexpr std::int64_t kBlockChunk = std::int64_t(1) << 18, kBlockGranule = 16384;
tc::ChunkPlan warp_chunks(std::int64_t ns, std::int64_t s, std::int64_t granule, int sms) {
  return granule == kEfficientGranule ? r::reduction256n_efficient_chunks(ns, s, sms)
                                      : r::reduction256n_inefficient_chunks(ns, s, sms);
}
}  // namespace

TEST_CASE("CPU model: the walk of reduction_walk (16 per lane, look-back as far as a segment reaches) sums every segment once") {
  // Integers in [-4, 4]: every sum exact in FP64. Several warps' shares put segment starts at every
  // phase of the 512-element slices; both with and without the slices that only add.
  for (std::int64_t s : {17, 18, 23, 24, 31, 32, 33, 47, 63, 97, 100, 255, 256, 257, 511, 513, 1000, 1031, 4099}) {
    for (std::int64_t ns : {std::int64_t{1}, std::int64_t{3}, std::int64_t{37}}) {
      for (std::int64_t warps : {std::int64_t{1}, std::int64_t{5}}) {
        for (bool add_only : {true, false}) {
          CAPTURE(s);
          CAPTURE(ns);
          CAPTURE(warps);
          CAPTURE(add_only);
          std::vector<double> x;
          const tcu::model::WalkOutput out = tcu::model::walk_all_shares(ns, s, warps, {16, true, add_only}, x);
          int bad = 0;
          for (std::int64_t k = 0; k < ns; ++k) {
            double want = 0.0;
            for (std::int64_t i = k * s; i < (k + 1) * s; ++i) want += x[static_cast<std::size_t>(i)];
            if (out.sum_writes[static_cast<std::size_t>(k)] != 1 || out.sums[static_cast<std::size_t>(k)] != want) ++bad;
          }
          CHECK(bad == 0);
        }
      }
    }
  }
}

TEST_CASE("split_segments: at most one chunk per 16 tiles, multiples of the granule, covering the segment") {
  for (int sms : {1, 8, kH100Sms}) {
    for (std::int64_t granule : {kInefficientGranule, kEfficientGranule}) {
      for (std::int64_t ns : {std::int64_t(1), std::int64_t(7), std::int64_t(1000), std::int64_t(1) << 20}) {
        for (std::int64_t s : {std::int64_t(1), std::int64_t(4096), std::int64_t(4097), std::int64_t(1000003),
                               std::int64_t(1) << 28}) {
          CAPTURE(sms);
          CAPTURE(granule);
          CAPTURE(ns);
          CAPTURE(s);
          const tc::ChunkPlan p = warp_chunks(ns, s, granule, sms);
          CHECK(p.chunk % granule == 0);
          CHECK(p.chunks_per_segment >= 1);
          CHECK(p.chunks_per_segment * p.chunk >= s);          // the chunks cover the segment …
          CHECK((p.chunks_per_segment - 1) * p.chunk < s);     // … and none is empty
          CHECK(p.chunks_per_segment <= std::max<std::int64_t>(1, (s + tc::kMinWarpChunk - 1) / tc::kMinWarpChunk));
          if (p.chunks_per_segment > 1 && granule == kEfficientGranule) CHECK(p.chunk >= tc::kMinWarpChunk);
          // never more warps than the target once a segment is cut
          if (p.chunks_per_segment > 1) CHECK(ns * p.chunks_per_segment <= sms * tc::kTargetWarpsPerSm + ns);
        }
      }
    }
  }
  // one whole array on an H100: 245 chunks of 4096 for a million elements, 2^14 chunks of 2^14 for 2^28
  CHECK(r::reduction256n_efficient_chunks(1, 1000003, kH100Sms).chunk == 4096);
  CHECK(r::reduction256n_efficient_chunks(1, 1000003, kH100Sms).chunks_per_segment == 245);
  CHECK(r::reduction256n_efficient_chunks(1, std::int64_t(1) << 28, kH100Sms).chunk == 16384);
  CHECK(r::reduction256n_efficient_chunks(1, std::int64_t(1) << 28, kH100Sms).chunks_per_segment == 16384);
  // many segments: no split
  CHECK(r::reduction256n_efficient_chunks(1 << 20, 4097, kH100Sms).chunks_per_segment == 1);
}

TEST_CASE("choose_reduce_algorithm: the crossovers, block level only with two segments per SM") {
  using tcu::ReduceAlgorithm;
  CHECK(tcu::choose_reduce_algorithm(100, 16, kH100Sms) == ReduceAlgorithm::reduction16_multisegment);
  CHECK(tcu::choose_reduce_algorithm(100, 512, kH100Sms) == ReduceAlgorithm::reduction16_multisegment);
  CHECK(tcu::choose_reduce_algorithm(100, 7, kH100Sms) == ReduceAlgorithm::reduction16);
  // Sizes that are not powers of two: the walk below 512, and up to 2^16 where they are not
  // multiples of 8 and there are segments for every resident warp; else the split 256N.
  CHECK(tcu::choose_reduce_algorithm(100, 17, kH100Sms) == ReduceAlgorithm::reduction_walk);
  CHECK(tcu::choose_reduce_algorithm(100, 24, kH100Sms) == ReduceAlgorithm::reduction_walk);
  CHECK(tcu::choose_reduce_algorithm(100, 100, kH100Sms) == ReduceAlgorithm::reduction_walk);
  CHECK(tcu::choose_reduce_algorithm(100, 257, kH100Sms) == ReduceAlgorithm::reduction_walk);
  CHECK(tcu::choose_reduce_algorithm(100, 48, kH100Sms) == ReduceAlgorithm::reduction_walk);
  CHECK(tcu::choose_reduce_algorithm(100, 200, kH100Sms) == ReduceAlgorithm::reduction_walk);
  CHECK(tcu::choose_reduce_algorithm(100, 1000, kH100Sms) == ReduceAlgorithm::reduction256n_efficient);
  CHECK(tcu::choose_reduce_algorithm(1 << 20, 1000, kH100Sms) == ReduceAlgorithm::reduction256n_efficient);
  CHECK(tcu::choose_reduce_algorithm(1 << 20, 12345, kH100Sms) == ReduceAlgorithm::reduction_walk);
  CHECK(tcu::choose_reduce_algorithm(4095, 12345, kH100Sms) == ReduceAlgorithm::reduction256n_efficient);
  CHECK(tcu::choose_reduce_algorithm(1 << 20, 65537, kH100Sms) == ReduceAlgorithm::reduction256n_block);
  CHECK(tcu::choose_reduce_algorithm(1 << 20, 256, kH100Sms) == ReduceAlgorithm::reduction16_multisegment);
  CHECK(tcu::choose_reduce_algorithm(100, 1024, kH100Sms) == ReduceAlgorithm::reduction256n_efficient);
  // Below 256N's round of 2048 elements, on a GPU whose memory delivers 16 bytes per SM cycle or
  // more (memory clock × bus width × 2 ÷ (SMs × SM clock): an H200, 3201 MHz × 6016 bits, 18.4;
  // an H100 SXM, 2619 MHz × 5120 bits, 12.8), the walk, given segments for every resident warp.
  const double h100 = 2.0 * 2619e3 * (5120 / 8) / (kH100Sms * 1980e3);
  const double h200 = 2.0 * 3201e3 * (6016 / 8) / (kH100Sms * 1980e3);
  CHECK(h100 == doctest::Approx(12.83).epsilon(0.001));
  CHECK(h200 == doctest::Approx(18.42).epsilon(0.001));
  for (const std::int64_t s : {520, 1000, 1024, 1200, 1536, 2040}) {
    CHECK(tcu::choose_reduce_algorithm(1 << 20, s, kH100Sms, h100) == ReduceAlgorithm::reduction256n_efficient);
    CHECK(tcu::choose_reduce_algorithm(1 << 20, s, kH100Sms, h200) == ReduceAlgorithm::reduction_walk);
    CHECK(tcu::choose_reduce_algorithm(4095, s, kH100Sms, h200) == ReduceAlgorithm::reduction256n_efficient);
  }
  CHECK(tcu::choose_reduce_algorithm(1 << 20, 2048, kH100Sms, h200) == ReduceAlgorithm::reduction256n_efficient);
  CHECK(tcu::choose_reduce_algorithm(1 << 20, 512, kH100Sms, h200) == ReduceAlgorithm::reduction16_multisegment);
  CHECK(tcu::choose_reduce_algorithm(1 << 20, 100, kH100Sms, h200) == ReduceAlgorithm::reduction_walk);
  CHECK(tcu::choose_reduce_algorithm(1 << 20, 5000, kH100Sms, h200) == ReduceAlgorithm::reduction256n_efficient);
  CHECK(tcu::choose_reduce_algorithm(2 * kH100Sms, 65536, kH100Sms) == ReduceAlgorithm::reduction256n_block);
  CHECK(tcu::choose_reduce_algorithm(2 * kH100Sms - 1, 65536, kH100Sms) == ReduceAlgorithm::reduction256n_efficient);
  // Past 2^18 the block level counts its chunks: one segment of 2^30 is 4096 blocks' work, one of
  // 2^22 + 5 only 17 (the warp split then), 256 of 2^20 are 1024.
  CHECK(tcu::choose_reduce_algorithm(1, std::int64_t(1) << 30, kH100Sms) == ReduceAlgorithm::reduction256n_block);
  CHECK(tcu::choose_reduce_algorithm(1, std::int64_t(1) << 28, kH100Sms) == ReduceAlgorithm::reduction256n_block);
  CHECK(tcu::choose_reduce_algorithm(1, (std::int64_t(1) << 22) + 5, kH100Sms) ==
        ReduceAlgorithm::reduction256n_efficient);
  CHECK(tcu::choose_reduce_algorithm(256, std::int64_t(1) << 20, kH100Sms) == ReduceAlgorithm::reduction256n_block);
  CHECK(tcu::choose_reduce_algorithm(65, std::int64_t(1) << 20, kH100Sms) == ReduceAlgorithm::reduction256n_efficient);
}

TEST_CASE("split_for_blocks: whole segments up to 2^18, else equal chunks of whole block tiles") {
  for (std::int64_t s : {std::int64_t(1), std::int64_t(4097), kBlockChunk, kBlockChunk + 1,
                         3 * kBlockChunk + 5, std::int64_t(1000003), (std::int64_t(1) << 28) + 7,
                         (std::int64_t(1) << 31) + 17}) {
    CAPTURE(s);
    const tc::ChunkPlan p = r::split_for_blocks(s);
    CHECK(p.chunks_per_segment * p.chunk >= s);       // the chunks cover the segment …
    CHECK((p.chunks_per_segment - 1) * p.chunk < s);  // … and none is empty
    if (s <= kBlockChunk) {
      CHECK(p.chunks_per_segment == 1);
      CHECK(p.chunk == s);
    } else {
      CHECK(p.chunk % kBlockGranule == 0);
      CHECK(p.chunk <= kBlockChunk);
      CHECK(p.chunks_per_segment == (s + kBlockChunk - 1) / kBlockChunk);
    }
  }
  CHECK(r::split_for_blocks(kBlockChunk + 1).chunk == 147456);  // 9 block tiles of 16384
  CHECK(r::split_for_blocks(std::int64_t(1) << 28).chunks_per_segment == 1024);
}

TEST_CASE("reduce_error_bound follows the library's own chunking") {
  using tcu::ReduceAlgorithm;
  // One segment of 1000003 on an H100: 245 chunks of 4096 (16 tiles: a chain of 256 per
  // column), V·Pᵀ (32), the block-wide second pass over 245 partials (1 + 10).
  const tcu::ReduceErrorBound prime = tcu::reduce_error_bound(ReduceAlgorithm::automatic, 1, 1000003, kH100Sms);
  CHECK(prime.depth == 256 + 32 + 11);
  CHECK(prime.rationale.find("reduction256n_efficient") != std::string::npos);
  CHECK(prime.rationale.find("chunks of 4096") != std::string::npos);
  CHECK(prime.rel_to_abs_sum == doctest::Approx(2.0 * prime.depth * std::ldexp(1.0, -24) + std::ldexp(1.0, -22)));
  // 2^28 by the warp split: 16384 chunks of 16384 (64 tiles), second pass 64 + 10.
  const tcu::ReduceErrorBound large = tcu::reduce_error_bound(ReduceAlgorithm::reduction256n_efficient, 1,
                                                              std::int64_t(1) << 28, kH100Sms);
  CHECK(large.depth == 64 * 16 + 32 + 74);
  // 2^28 automatically (the block level): 1024 chunks of 2^18, rounds of 8 tiles (a chain of
  // 8 MMAs), 16 rounds per warp, 4 shuffle levels, one X·Pᵀ, second pass 4 + 10.
  const tcu::ReduceErrorBound blocks = tcu::reduce_error_bound(ReduceAlgorithm::automatic, 1, std::int64_t(1) << 28,
                                                               kH100Sms);
  CHECK(blocks.rationale.find("reduction256n_block") != std::string::npos);
  CHECK(blocks.rationale.find("chunks of 262144 per block") != std::string::npos);
  CHECK(blocks.depth == 8 * 16 + 16 + 4 + 32 + 14);
  // The depth is the chain along the real chunk, for every shape and both split kernels.
  for (std::int64_t ns : {std::int64_t(1), std::int64_t(7), std::int64_t(4096)}) {
    for (std::int64_t s : {std::int64_t(1024), std::int64_t(4097), std::int64_t(65536), std::int64_t(1) << 24}) {
      CAPTURE(ns);
      CAPTURE(s);
      const tc::ChunkPlan pe = r::reduction256n_efficient_chunks(ns, s, kH100Sms);
      const std::int64_t tiles = (std::min(pe.chunk, s) + 255) / 256;
      const tcu::ReduceErrorBound e = tcu::reduce_error_bound(ReduceAlgorithm::reduction256n_efficient, ns, s, kH100Sms);
      CHECK(e.depth >= 16 * tiles + 32);
      CHECK(e.depth <= 16 * tiles + 32 + (pe.chunks_per_segment + 255) / 256 + 10);
      const tc::ChunkPlan pi = r::reduction256n_inefficient_chunks(ns, s, kH100Sms);
      const tcu::ReduceErrorBound i =
          tcu::reduce_error_bound(ReduceAlgorithm::reduction256n_inefficient, ns, s, kH100Sms);
      CHECK(i.depth >= 16 + 32 * ((std::min(pi.chunk, s) + 255) / 256));
    }
  }
  // Monotone in n for one segment from 1024 on while the algorithm stays (the split
  // work-efficient 256N, then the block level, whose chains per warp are shorter), and fewer SMs
  // mean longer chunks, a looser bound, for the same algorithm.
  tcu::ReduceErrorBound prev = tcu::reduce_error_bound(ReduceAlgorithm::automatic, 1, 1024, kH100Sms);
  ReduceAlgorithm prev_algorithm = tcu::choose_reduce_algorithm(1, 1024, kH100Sms);
  for (std::int64_t n = 1024; n <= (std::int64_t(1) << 31); n = n * 5 / 4 + 1) {
    CAPTURE(n);
    const tcu::ReduceErrorBound b = tcu::reduce_error_bound(ReduceAlgorithm::automatic, 1, n, kH100Sms);
    const ReduceAlgorithm a = tcu::choose_reduce_algorithm(1, n, kH100Sms);
    if (a == prev_algorithm) {
      CHECK(b.depth >= prev.depth);
      CHECK(b.rel_to_abs_sum >= prev.rel_to_abs_sum);
    }
    if (tcu::choose_reduce_algorithm(1, n, 8) == a)
      CHECK(tcu::reduce_error_bound(ReduceAlgorithm::automatic, 1, n, 8).rel_to_abs_sum >= b.rel_to_abs_sum);
    prev = b;
    prev_algorithm = a;
  }
  // Every algorithm: a finite, positive bound that names it; the fp32 ones below 1e-3 here.
  for (tcu::ReduceAlgorithm a : tcu::all_reduce_algorithms()) {
    for (std::int64_t s : {std::int64_t(1), std::int64_t(16), std::int64_t(256), std::int64_t(4097),
                           std::int64_t(1) << 20}) {
      if (!tcu::reduce_algorithm_supports(a, s)) continue;
      CAPTURE(tcu::reduce_algorithm_name(a));
      CAPTURE(s);
      const tcu::ReduceErrorBound b = tcu::reduce_error_bound(a, 3, s, kH100Sms);
      CHECK(b.depth >= 16);
      CHECK(b.rel_to_abs_sum > 0);
      CHECK(b.rationale.find(tcu::reduce_algorithm_name(a)) == 0);
      if (a != ReduceAlgorithm::chained_mma_fp16_accumulate && a != ReduceAlgorithm::reduction16n_strided &&
          a != ReduceAlgorithm::reduction16n_coalesced)
        CHECK(b.rel_to_abs_sum < 1e-3);
    }
  }
  // Short segments: one MMA (Reduction16), or the multi-segment V·M, no split for 16.
  CHECK(tcu::reduce_error_bound(ReduceAlgorithm::automatic, 1000, 7, kH100Sms).depth == 16);
  CHECK(tcu::reduce_error_bound(ReduceAlgorithm::automatic, 1000, 16, kH100Sms).rel_to_abs_sum ==
        doctest::Approx(2.0 * 16 * std::ldexp(1.0, -24)));
  CHECK(tcu::reduce_error_bound(ReduceAlgorithm::automatic, 1000, 256, kH100Sms).depth == 16 + 32);
}

TEST_CASE("energy counter: NVML that cannot be opened makes the energy n/a, and says why") {
  const tcu::bench::reduce::EnergyCounter counter(0, "libnvidia-ml-not-installed.so.1");
  CHECK_FALSE(counter.ok());
  CHECK(counter.millijoules() == 0.0);
  CHECK(counter.status().rfind("n/a (libnvidia-ml-not-installed.so.1 cannot be opened", 0) == 0);
}
