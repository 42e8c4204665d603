// Chapter 03, GPU tests: every algorithm of the API and every baseline against the FP64 CPU
// sum (derived tolerances) and, with integer inputs, bit for bit — against FP64 and against
// CUB — over the listed segment sizes and counts, from unaligned pointers; zero segments;
// invalid arguments; one huge segment through the API; determinism; the fp16 replica's overflow.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "03_tcu_reduction/bench/baselines.cuh"
#include "03_tcu_reduction/bench/energy_counter.hpp"
#include "03_tcu_reduction/bench/sweep.hpp"
#include "03_tcu_reduction/kernels/launchers.hpp"
#include "03_tcu_reduction/tcu_reduction.cuh"
#include "common/segments.hpp"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "common/verify.hpp"

namespace red = tcu::bench::reduce;
namespace r03 = tcu::detail::reduce;
using tcu::Dist;

namespace {

constexpr std::int64_t kSizes[] = {1, 3, 16, 17, 48, 255, 256, 257, 1000, 4097};

// Segment counts: 0, 1, 7 and a "large" one (about 2^18 elements, at least 33 segments).
std::vector<std::int64_t> counts_for(std::int64_t s, bool large) {
  std::vector<std::int64_t> c{0, 1, 7};
  if (!large) return {0, 7};  // the sanitizers run this set: keep it small
  if (large) c.push_back(std::max<std::int64_t>(33, (std::int64_t(1) << 18) / s));
  return c;
}

struct Outcome {
  tcu::VerifyResult fp64;
  std::vector<float> got;
};

// Runs `variant` on ns segments of s elements read from d_in + offset, returns the check vs FP64.
Outcome run_case(const red::SegmentedVariant& variant, std::int64_t ns, std::int64_t s, Dist dist,
                 std::uint64_t seed, std::int64_t offset) {
  const std::int64_t n = ns * s;
  tcu::DeviceBuffer<__half> in(static_cast<std::size_t>(n + offset + 1));
  tcu::fill_device(in.data(), static_cast<std::size_t>(n + offset + 1), dist, seed);
  tcu::DeviceBuffer<float> out(static_cast<std::size_t>(std::max<std::int64_t>(ns, 1)));
  tcu::poison_device(out.data(), out.bytes());
  TCU_CUDA_CHECK(variant.run(in.data() + offset, out.data(), ns, s, 0));
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  Outcome o;
  o.got.resize(static_cast<std::size_t>(std::max<std::int64_t>(ns, 1)));
  out.copy_to_host(o.got.data(), o.got.size());
  if (ns == 0) {  // nothing written: the poison is still there
    std::uint32_t bits = 0;
    std::memcpy(&bits, &o.got[0], 4);
    o.fp64.pass = (bits == 0xffffffffu);
    return o;
  }
  std::vector<__half> h(static_cast<std::size_t>(n));
  TCU_CUDA_CHECK(cudaMemcpy(h.data(), in.data() + offset, n * sizeof(__half), cudaMemcpyDeviceToHost));
  std::vector<double> want, mag;
  tcu::reference_segmented_sum(h.data(), ns, s, want, mag);
  const tcu::Tolerance tol = dist == Dist::integers ? tcu::exact_tolerance() : red::variant_tolerance(variant, ns, s);
  o.fp64 = tcu::verify(o.got.data(), want.data(), mag.data(), o.got.size(), tol);
  return o;
}

bool supports(const red::SegmentedVariant& v, std::int64_t s) { return v.supports(s); }

void check_all_variants(bool large, const std::vector<Dist>& dists, const std::vector<std::int64_t>& offsets) {
  red::CubTemp temp;
  const auto variants = red::segmented_variants(temp);
  const std::vector<std::int64_t> sizes = large ? std::vector<std::int64_t>(std::begin(kSizes), std::end(kSizes))
                                                : std::vector<std::int64_t>{3, 17, 256, 257, 4097};
  for (const red::SegmentedVariant& v : variants)
    for (std::int64_t s : sizes) {
      if (!supports(v, s)) continue;
      for (std::int64_t ns : counts_for(s, large))
        for (Dist dist : dists)
          for (std::int64_t off : offsets) {
            CAPTURE(v.name);
            CAPTURE(s);
            CAPTURE(ns);
            CAPTURE(tcu::dist_name(dist));
            CAPTURE(off);
            const Outcome o = run_case(v, ns, s, dist, 1000 + s + ns, off);
            INFO(o.fp64.summary());
            CHECK(o.fp64.pass);
          }
    }
}

}  // namespace

TEST_CASE("every algorithm and baseline vs FP64: sizes 3/17/256/257/4097, counts 0/7, integers bit-exact, d_in + 1") {
  check_all_variants(false, {Dist::integers}, {0, 1});
  check_all_variants(false, {Dist::normal}, {0});
}

TEST_CASE("every algorithm and baseline vs FP64: all listed sizes, large counts, 3 dists, offsets 0/3/8 [large]") {
  check_all_variants(true, {Dist::integers, Dist::uniform, Dist::normal}, {0, 3, 8});
}

TEST_CASE("Reduction16 multi-segment: segments 16 … 2048, counts 0/1/7/37/large, offsets 0/1/3/8, integers bit-exact") {
  red::CubTemp temp;
  const auto variants = red::segmented_variants(temp);
  const red::SegmentedVariant* ms = nullptr;
  for (const auto& v : variants)
    if (v.name == "reduction16_multisegment") ms = &v;
  REQUIRE(ms != nullptr);
  for (std::int64_t s = 16; s <= 2048; s *= 2)
    for (std::int64_t ns : {std::int64_t(0), std::int64_t(1), std::int64_t(7), std::int64_t(37),
                            std::max<std::int64_t>(33, (std::int64_t(1) << 16) / s) + 3})
      for (Dist dist : {Dist::integers, Dist::normal})
        for (std::int64_t off : {0, 1, 3, 8}) {
          CAPTURE(s);
          CAPTURE(ns);
          CAPTURE(tcu::dist_name(dist));
          CAPTURE(off);
          const Outcome o = run_case(*ms, ns, s, dist, 77 + s + ns, off);
          INFO(o.fp64.summary());
          CHECK(o.fp64.pass);
        }
}

namespace {
const red::SegmentedVariant& variant_named(const std::vector<red::SegmentedVariant>& variants, const char* name) {
  for (const auto& v : variants)
    if (v.name == name) return v;
  FAIL("no variant " << name);
  return variants.front();
}

// The pipelined work-efficient 256N: rounds of 8 tiles, chunks ending inside a round, the next
// chunk's loads issued before the last round of this one is multiplied.
// One variant over sizes × counts × offsets, integer (bit-exact) and normal data, vs FP64.
void check_variant(const char* name, const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& counts,
                   const std::vector<std::int64_t>& offsets, std::int64_t seed) {
  red::CubTemp temp;
  const auto variants = red::segmented_variants(temp);
  const red::SegmentedVariant& v = variant_named(variants, name);
  for (std::int64_t s : sizes)
    for (std::int64_t ns : counts)
      for (Dist dist : {Dist::integers, Dist::normal})
        for (std::int64_t off : offsets) {
          CAPTURE(s);
          CAPTURE(ns);
          CAPTURE(tcu::dist_name(dist));
          CAPTURE(off);
          const Outcome o = run_case(v, ns, s, dist, seed + s + ns, off);
          INFO(o.fp64.summary());
          CHECK(o.fp64.pass);
        }
}
}  // namespace

TEST_CASE("Reduction256N work-efficient, pipelined: segments 2048/4097/6000/16387, counts 0/1/7/37, offsets 0/3, integers bit-exact") {
  check_variant("reduction256n_efficient", {2048, 4097, 6000, 16387}, {0, 1, 7, 37}, {0, 3}, 91);
}

TEST_CASE("Reduction256N work-efficient, pipelined: many chunks per warp [large]") {
  check_variant("reduction256n_efficient", {2048, 4097}, {(std::int64_t(1) << 15) + 7}, {0, 1}, 91);
  check_variant("reduction256n_efficient", {32768}, {1001}, {0, 1}, 91);  // 8 chunks per segment
}

// The block-level 256N past 2^18: segments cut into chunks of whole block tiles (the last
// one ragged), a block per chunk, the partials added by the second pass.
TEST_CASE("Reduction256N block level: segments past 2^18 split into chunks, counts 1/2, offsets 0/3, integers bit-exact") {
  red::CubTemp temp;
  const auto variants = red::segmented_variants(temp);
  const red::SegmentedVariant& blk = variant_named(variants, "reduction256n_block");
  const std::int64_t s = (std::int64_t(1) << 18) + 4097;  // two chunks: 147456 + 118785
  REQUIRE(r03::split_for_blocks(s).chunks_per_segment == 2);
  for (std::int64_t ns : {1, 2})
    for (Dist dist : {Dist::integers, Dist::normal}) {
      const std::int64_t off = dist == Dist::integers ? 3 : 0;
      CAPTURE(ns);
      CAPTURE(tcu::dist_name(dist));
      const Outcome o = run_case(blk, ns, s, dist, 55 + ns, off);
      INFO(o.fp64.summary());
      CHECK(o.fp64.pass);
    }
}

// The block level's steps of 4 tiles per warp: segments ending inside a step, after an odd
// number of steps, warps with no tile at all.
TEST_CASE("Reduction256N block level: segments of a few steps, counts 1/7/37, offsets 0/3, integers bit-exact") {
  check_variant("reduction256n_block", {2049, 8191, 8193, 16385, 24577, 40961, 65537, 100003}, {1, 7, 37}, {0, 3}, 77);
}

TEST_CASE("Reduction256N block level: many chunks per segment, and the automatic choice of it [large]") {
  red::CubTemp temp;
  const auto variants = red::segmented_variants(temp);
  for (const char* name : {"reduction256n_block", "auto"}) {
    const red::SegmentedVariant& v = variant_named(variants, name);
    // (segments, size): 4 chunks each, 12 or (auto: block level) 280 blocks; 17 chunks each
    constexpr std::int64_t kFourChunks = 3 * (std::int64_t(1) << 18) + 5;
    const std::pair<std::int64_t, std::int64_t> shapes[] = {
        {3, kFourChunks}, {70, kFourChunks}, {3, (std::int64_t(1) << 22) + 1}};
    for (const std::pair<std::int64_t, std::int64_t>& shape : shapes)
      for (Dist dist : {Dist::integers, Dist::uniform}) {
        const std::int64_t ns = shape.first, s = shape.second;
        CAPTURE(name);
        CAPTURE(s);
        CAPTURE(ns);
        CAPTURE(tcu::dist_name(dist));
        const Outcome o = run_case(v, ns, s, dist, 56 + ns, dist == Dist::integers ? 1 : 0);
        INFO(o.fp64.summary());
        CHECK(o.fp64.pass);
      }
  }
}

TEST_CASE("Reduction16 multi-segment: partial sums too large for fp16 are added in fp32") {
  for (std::int64_t s : {32, 256, 512}) {
    const std::int64_t ns = 9;
    std::vector<__half> h(static_cast<std::size_t>(ns * s));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = __float2half(static_cast<float>(4096 + 32 * (i % 7)));
    tcu::DeviceBuffer<__half> in(h.size());
    TCU_CUDA_CHECK(cudaMemcpy(in.data(), h.data(), h.size() * sizeof(__half), cudaMemcpyHostToDevice));
    tcu::DeviceBuffer<float> out(static_cast<std::size_t>(ns));
    tcu::poison_device(out.data(), out.bytes());
    REQUIRE(tcu::segmented_reduce_sum(tcu::ReduceAlgorithm::reduction16_multisegment, in.data(), out.data(), ns, s) ==
            cudaSuccess);
    std::vector<float> got(static_cast<std::size_t>(ns));
    out.copy_to_host(got.data(), got.size());
    for (std::int64_t c = 0; c < ns; ++c) {
      double want = 0;
      for (std::int64_t j = 0; j < s; ++j) want += __half2float(h[static_cast<std::size_t>(c * s + j)]);
      CAPTURE(s);
      CAPTURE(c);
      CHECK(static_cast<double>(got[static_cast<std::size_t>(c)]) == want);  // integers < 2^24: exact
    }
  }
  CHECK(tcu::segmented_reduce_sum(tcu::ReduceAlgorithm::reduction16_multisegment, nullptr, nullptr, 0, 48) ==
        cudaSuccess);
}

TEST_CASE("partial sums above 2^15: the collapse steps take their fp32 path, results stay exact") {
  // Integers of about 4000 (segments <= 1024) or 1000 (longer): a column of V (16 values of
  // one tile, or more across a chain) passes 2^15, so V·Pᵀ, P·Q, C·1 and V·M cannot split it
  // into fp16 hi + lo and add in fp32 instead; every partial stays an integer below 2^24, so
  // every algorithm must give the exact sum.
  red::CubTemp temp;
  const auto variants = red::segmented_variants(temp);
  for (std::int64_t s : {256, 1024, 4096}) {
    const std::int64_t ns = 9;
    std::vector<__half> h(static_cast<std::size_t>(ns * s));
    for (std::size_t i = 0; i < h.size(); ++i)
      h[i] = __float2half(s <= 1024 ? static_cast<float>(4000 - 2 * static_cast<int>(i % 3))
                                    : static_cast<float>(1000 + 8 * static_cast<int>(i % 5)));
    std::vector<double> want(static_cast<std::size_t>(ns), 0.0);
    for (std::int64_t c = 0; c < ns; ++c)
      for (std::int64_t j = 0; j < s; ++j) want[static_cast<std::size_t>(c)] += __half2float(h[c * s + j]);
    tcu::DeviceBuffer<__half> in(h.size());
    TCU_CUDA_CHECK(cudaMemcpy(in.data(), h.data(), h.size() * sizeof(__half), cudaMemcpyHostToDevice));
    tcu::DeviceBuffer<float> out(static_cast<std::size_t>(ns));
    for (const auto& v : variants) {
      if (!v.tcu || !supports(v, s)) continue;
      CAPTURE(v.name);
      CAPTURE(s);
      tcu::poison_device(out.data(), out.bytes());
      REQUIRE(v.run(in.data(), out.data(), ns, s, 0) == cudaSuccess);
      TCU_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> got(static_cast<std::size_t>(ns));
      out.copy_to_host(got.data(), got.size());
      for (std::int64_t c = 0; c < ns; ++c) {
        CAPTURE(c);
        CHECK(static_cast<double>(got[static_cast<std::size_t>(c)]) == want[static_cast<std::size_t>(c)]);
      }
    }
  }
}

TEST_CASE("integer inputs: every TCU algorithm equals CUB's segmented reduce bit for bit") {
  red::CubTemp temp;
  const auto variants = red::segmented_variants(temp);
  const red::SegmentedVariant* cub = nullptr;
  for (const auto& v : variants)
    if (v.name == "cub_segmented_reduce") cub = &v;
  REQUIRE(cub != nullptr);
  for (std::int64_t s : {3, 17, 32, 256, 1000}) {
    const std::int64_t ns = 37;
    const Outcome want = run_case(*cub, ns, s, Dist::integers, 5, 1);
    for (const auto& v : variants) {
      if (!v.tcu || !supports(v, s)) continue;
      CAPTURE(v.name);
      CAPTURE(s);
      const Outcome got = run_case(v, ns, s, Dist::integers, 5, 1);
      CHECK(std::memcmp(got.got.data(), want.got.data(), ns * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("invalid arguments: cudaErrorInvalidValue, nothing launched") {
  tcu::DeviceBuffer<__half> in(64);
  tcu::DeviceBuffer<float> out(4);
  using tcu::ReduceAlgorithm;
  CHECK(tcu::segmented_reduce_sum(nullptr, out.data(), 1, 16) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_reduce_sum(in.data(), nullptr, 1, 16) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_reduce_sum(in.data(), out.data(), -1, 16) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_reduce_sum(in.data(), out.data(), 1, -16) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_reduce_sum(in.data(), out.data(), 1, 0) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_reduce_sum(in.data(), out.data(), INT64_MAX / 2, 4) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_reduce_sum(ReduceAlgorithm::reduction16, in.data(), out.data(), 1, 17) ==
        cudaErrorInvalidValue);
  CHECK(tcu::segmented_reduce_sum(ReduceAlgorithm::reduction256, in.data(), out.data(), 1, 257) ==
        cudaErrorInvalidValue);
  CHECK(tcu::segmented_reduce_sum(ReduceAlgorithm::reduction16_multisegment, in.data(), out.data(), 1, 48) ==
        cudaErrorInvalidValue);
  CHECK(tcu::segmented_reduce_sum(static_cast<ReduceAlgorithm>(999), in.data(), out.data(), 1, 4) ==
        cudaErrorInvalidValue);
  tcu::ChainedMmaConfig bad;
  bad.block_threads = 100;
  CHECK(tcu::segmented_reduce_sum_chained(ReduceAlgorithm::chained_mma_single_pass, bad, in.data(), out.data(), 1,
                                          16) == cudaErrorInvalidValue);
  bad = tcu::ChainedMmaConfig{};
  bad.chain_length = 0;
  CHECK(tcu::segmented_reduce_sum_chained(ReduceAlgorithm::chained_mma_recurrence, bad, in.data(), out.data(), 1,
                                          16) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_reduce_sum_chained(ReduceAlgorithm::reduction16, tcu::ChainedMmaConfig{}, in.data(),
                                          out.data(), 1, 16) == cudaErrorInvalidValue);
  red::CubTemp temp;
  CHECK(red::baseline_segmented_reduce_sum(red::Baseline::shuffle_16b, temp, nullptr, out.data(), 1, 4) ==
        cudaErrorInvalidValue);
  // zero segments: success with null pointers
  CHECK(tcu::segmented_reduce_sum(nullptr, nullptr, 0, 16) == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
}

namespace {
void check_one_segment(std::int64_t n, Dist dist, std::int64_t offset) {
  tcu::DeviceBuffer<__half> in(static_cast<std::size_t>(n + offset));
  tcu::fill_device(in.data(), static_cast<std::size_t>(n + offset), dist, 99);
  tcu::DeviceBuffer<float> out(1);
  tcu::poison_device(out.data(), out.bytes());
  REQUIRE(tcu::segmented_reduce_sum(in.data() + offset, out.data(), 1, n) == cudaSuccess);
  float got = 0;
  TCU_CUDA_CHECK(cudaMemcpy(&got, out.data(), 4, cudaMemcpyDeviceToHost));
  std::vector<__half> h(static_cast<std::size_t>(n));
  TCU_CUDA_CHECK(cudaMemcpy(h.data(), in.data() + offset, n * 2, cudaMemcpyDeviceToHost));
  const tcu::SumRef ref = tcu::reference_sum(h.data(), h.size());
  // The API's own bound for what it does with this shape (its real split of the segment).
  const tcu::Tolerance tol = dist == Dist::integers
                                 ? tcu::exact_tolerance()
                                 : red::bound_tolerance(tcu::reduce_error_bound(tcu::ReduceAlgorithm::automatic, 1, n));
  INFO(tol.rationale);
  const double d = ref.sum;
  const tcu::VerifyResult r = tcu::verify(&got, &d, &ref.abs_sum, 1, tol);
  INFO(r.summary());
  CHECK(r.pass);
}
}  // namespace

TEST_CASE("the API with one huge segment (a whole array), aligned and not") {
  check_one_segment((std::int64_t(1) << 22) + 5, Dist::integers, 0);
  check_one_segment((std::int64_t(1) << 22) + 5, Dist::normal, 3);
}

TEST_CASE("the API with one huge segment of 2^28 + 7 elements [large]") {
  check_one_segment((std::int64_t(1) << 28) + 7, Dist::integers, 1);
  check_one_segment((std::int64_t(1) << 28) + 7, Dist::uniform, 0);
}

TEST_CASE("deterministic algorithms give the same bits twice") {
  red::CubTemp temp;
  for (const auto& v : red::segmented_variants(temp)) {
    if (!v.deterministic || !supports(v, 1000)) continue;
    CAPTURE(v.name);
    const Outcome a = run_case(v, 50, 1000, Dist::normal, 3, 0);
    const Outcome b = run_case(v, 50, 1000, Dist::normal, 3, 0);
    CHECK(std::memcmp(a.got.data(), b.got.data(), 50 * sizeof(float)) == 0);
  }
}

TEST_CASE("Navarro's fp16 accumulators overflow on uniform inputs; fp32 accumulation does not") {
  const std::int64_t n = std::int64_t(1) << 18;  // sum ≈ 131072 > 65504
  tcu::DeviceBuffer<__half> in(static_cast<std::size_t>(n));
  tcu::fill_device(in.data(), static_cast<std::size_t>(n), Dist::uniform, 4);
  tcu::DeviceBuffer<float> out(2);
  REQUIRE(tcu::segmented_reduce_sum(tcu::ReduceAlgorithm::chained_mma_fp16_accumulate, in.data(), out.data(), 1, n) ==
          cudaSuccess);
  REQUIRE(tcu::segmented_reduce_sum(tcu::ReduceAlgorithm::chained_mma_recurrence, in.data(), out.data() + 1, 1, n) ==
          cudaSuccess);
  float got[2];
  TCU_CUDA_CHECK(cudaMemcpy(got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
  CHECK(std::isinf(got[0]));
  CHECK(std::isfinite(got[1]));
  CHECK(got[1] == doctest::Approx(n / 2.0).epsilon(0.01));
}

// reduction_any_size (kernels/12_reduction_any_size.cu) and reduction_walk (13): warps walk
// aligned tiles of the array whatever the segments (rows cut at segment starts; slices whose
// lanes restart at heads), so every size and every phase of the segments against the tiles must
// come out right: 1 … 40, primes, the listed sizes; odd counts that leave a partial round and
// give warps shares of different lengths; d_in + 1; integers bit for bit (also vs CUB through
// the generic tests), random data within the derived bound.
namespace {
constexpr tcu::ReduceAlgorithm kAnySize[] = {tcu::ReduceAlgorithm::reduction_any_size,
                                             tcu::ReduceAlgorithm::reduction_walk};
const red::SegmentedVariant& variant_named(const std::vector<red::SegmentedVariant>& variants,
                                           tcu::ReduceAlgorithm a) {
  for (const auto& v : variants)
    if (v.name == tcu::reduce_algorithm_name(a)) return v;
  FAIL(tcu::reduce_algorithm_name(a) << " is not among the variants");
  return variants.front();
}
}  // namespace

TEST_CASE("reduction_any_size, reduction_walk: sizes 1 … 40, primes, listed sizes; odd counts; integers exact, random vs FP64") {
  red::CubTemp temp;
  const auto variants = red::segmented_variants(temp);
  for (tcu::ReduceAlgorithm a : kAnySize) {
    const red::SegmentedVariant& v = variant_named(variants, a);
    CAPTURE(v.name);
    for (std::int64_t s : tcu::any_size_test_sizes()) {
      REQUIRE(v.supports(s));
      for (std::int64_t ns : {std::int64_t{1}, std::int64_t{7}, std::int64_t{37}, (std::int64_t{1} << 18) / s | 1}) {
        CAPTURE(s);
        CAPTURE(ns);
        const Outcome ints = run_case(v, ns, s, Dist::integers, 300 + s, 1);
        INFO(ints.fp64.summary());
        CHECK(ints.fp64.pass);
        const Outcome uni = run_case(v, ns, s, Dist::uniform, 400 + s, 0);
        INFO(uni.fp64.summary());
        CHECK(uni.fp64.pass);
        const Outcome nor = run_case(v, ns, s, Dist::normal, 500 + s, 3);
        INFO(nor.fp64.summary());
        CHECK(nor.fp64.pass);
      }
    }
  }
}

TEST_CASE("reduction_any_size, reduction_walk: many rounds per warp, and the automatic choice, vs FP64") {
  red::CubTemp temp;
  const auto variants = red::segmented_variants(temp);
  const red::SegmentedVariant& v = variant_named(variants, tcu::ReduceAlgorithm::reduction_any_size);
  const red::SegmentedVariant& walk = variant_named(variants, tcu::ReduceAlgorithm::reduction_walk);
  const red::SegmentedVariant* automatic = nullptr;
  for (const auto& a : variants)
    if (a.name == tcu::reduce_algorithm_name(tcu::ReduceAlgorithm::automatic)) automatic = &a;
  for (std::int64_t s : {17, 24, 48, 96, 100, 200, 255, 257, 1000, 3000, 5000, 12345}) {
    const std::int64_t ns = (std::int64_t{1} << 22) / s + 1;
    CAPTURE(s);
    CHECK(run_case(v, ns, s, Dist::integers, 600 + s, 0).fp64.pass);
    CHECK(run_case(v, ns, s, Dist::uniform, 700 + s, 1).fp64.pass);
    CHECK(run_case(walk, ns, s, Dist::integers, 650 + s, 0).fp64.pass);
    CHECK(run_case(walk, ns, s, Dist::normal, 750 + s, 1).fp64.pass);
    if (automatic != nullptr) CHECK(run_case(*automatic, ns, s, Dist::normal, 800 + s, 0).fp64.pass);
  }
}

TEST_CASE("reduction_any_size, reduction_walk: d_out + 1, poisoned neighbours untouched, a non-default stream") {
  for (tcu::ReduceAlgorithm a : kAnySize) {
    for (std::int64_t s : {9, 17, 33, 255, 1000, 4099}) {
      const std::int64_t ns = 1001;
      const std::int64_t n = ns * s;
      tcu::DeviceBuffer<__half> in(static_cast<std::size_t>(n + 1));
      tcu::DeviceBuffer<float> out(static_cast<std::size_t>(ns + 2));
      cudaStream_t stream;
      TCU_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      // Everything on `stream`: a non-blocking stream does not wait for the legacy default
      // stream, so an input filled there could still be in flight when the reduction reads it.
      tcu::fill_device(in.data(), static_cast<std::size_t>(n + 1), Dist::integers, 900 + s, stream);
      tcu::poison_device(out.data(), out.bytes(), stream);
      REQUIRE(tcu::segmented_reduce_sum(a, in.data() + 1, out.data() + 1, ns, s,
                                        stream) == cudaSuccess);
      TCU_CUDA_CHECK(cudaStreamSynchronize(stream));
      TCU_CUDA_CHECK(cudaStreamDestroy(stream));
      std::vector<float> got(static_cast<std::size_t>(ns + 2));
      out.copy_to_host(got.data(), got.size());
      std::vector<__half> h(static_cast<std::size_t>(n));
      TCU_CUDA_CHECK(cudaMemcpy(h.data(), in.data() + 1, n * sizeof(__half), cudaMemcpyDeviceToHost));
      std::vector<double> want, mag;
      tcu::reference_segmented_sum(h.data(), ns, s, want, mag);
      CAPTURE(tcu::reduce_algorithm_name(a));
      CAPTURE(s);
      CHECK(std::isnan(got[0]));
      CHECK(std::isnan(got[static_cast<std::size_t>(ns + 1)]));
      std::size_t bad = 0;
      for (std::int64_t i = 0; i < ns; ++i)
        if (!(static_cast<double>(got[static_cast<std::size_t>(i + 1)]) == want[static_cast<std::size_t>(i)])) ++bad;
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("energy counter: the driver's NVML opened at run time, or n/a with the reason") {
  const red::EnergyCounter counter(0);
  INFO(counter.status());
  if (!counter.ok()) {
    CHECK(counter.status().rfind("n/a (", 0) == 0);  // a GPU without an energy counter: n/a, no failure
    return;
  }
  CHECK(counter.status() == "NVML total energy counter");
  const double first = counter.millijoules();
  CHECK(first > 0.0);
  CHECK(counter.millijoules() >= first);  // a running total
}
