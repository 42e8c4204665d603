// Chapter 04, GPU tests: every algorithm, inclusive and exclusive, fp16 and fp32 outputs,
// against the FP64 reference (derived tolerances) and against Thrust, over the listed segment
// sizes and counts, unaligned pointers, integer inputs bit for bit, the baselines, and the
// argument checks, and the fp32 fallback of the hi/lo split (values above 2^15). Outputs are
// poisoned (NaN) before every run, so an unwritten element fails.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "04_tcu_scan/bench/scan_bench.hpp"
#include "04_tcu_scan/tcu_scan.cuh"
#include "common/segments.hpp"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "common/verify.hpp"

namespace sb = tcu::bench::scan;
using tcu::ScanAlgorithm;

namespace {

std::string name_of(ScanAlgorithm a) { return tcu::scan_algorithm_name(a); }

// Every tensor-core algorithm of the API's name table, and its automatic choice.
const std::vector<std::string> kTcuAlgos = [] {
  std::vector<std::string> v;
  for (ScanAlgorithm a : tcu::all_scan_algorithms()) v.push_back(name_of(a));
  v.push_back(name_of(ScanAlgorithm::automatic));
  return v;
}();
const std::vector<std::string>& kBaselines = sb::baseline_names();
const std::vector<std::string> kPipelined = {name_of(ScanAlgorithm::scan256_pipelined),
                                             name_of(ScanAlgorithm::scan256_pipelined_shfl)};
const std::vector<std::int64_t> kSizes = {1, 3, 16, 17, 48, 255, 256, 257, 1000, 4097};

template <class OutT>
constexpr sb::OutType out_type_of() {
  return sizeof(OutT) == 2 ? sb::OutType::fp16 : sb::OutType::fp32;
}

// Runs `name` on segments of the data set (dist, seed) at element offsets in_off / out_off of
// the buffers (to make the pointers unaligned) and returns the output on the host.
template <class OutT>
std::vector<OutT> run_on_device(const std::string& name, bool inclusive, std::int64_t segs, std::int64_t size,
                                tcu::Dist dist, std::uint64_t seed, int in_off = 0, int out_off = 0) {
  const std::size_t n = static_cast<std::size_t>(segs * size);
  tcu::DeviceBuffer<__half> d_in(n + 8);
  tcu::DeviceBuffer<OutT> d_out(n + 8);
  tcu::fill_device(d_in.data() + in_off, n, dist, seed);
  tcu::poison_device(d_out.data(), d_out.bytes());
  sb::Scratch scratch;
  sb::run_variant(name, inclusive, d_in.data() + in_off, d_out.data() + out_off, segs, size, scratch);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<OutT> h(n + 8);
  d_out.copy_to_host(h.data(), n + 8);
  // Nothing outside [out_off, out_off + n) may be written: those elements stay poisoned.
  for (std::size_t i = 0; i < h.size(); ++i)
    if (i < static_cast<std::size_t>(out_off) || i >= n + out_off) REQUIRE(std::isnan(tcu::to_double(h[i])));
  return std::vector<OutT>(h.begin() + out_off, h.begin() + out_off + static_cast<std::ptrdiff_t>(n));
}

template <class OutT>
void check_against_fp64(const std::string& name, bool inclusive, std::int64_t segs, std::int64_t size, tcu::Dist dist,
                        std::uint64_t seed, int in_off = 0, int out_off = 0) {
  CAPTURE(name);
  CAPTURE(inclusive);
  CAPTURE(segs);
  CAPTURE(size);
  CAPTURE(sizeof(OutT));
  CAPTURE(tcu::dist_name(dist));
  const auto got = run_on_device<OutT>(name, inclusive, segs, size, dist, seed, in_off, out_off);
  const tcu::Tolerance tol = sb::scan_tolerance(name, size, out_type_of<OutT>(), dist == tcu::Dist::integers);
  const tcu::VerifyResult r = sb::verify_segments(got.data(), 0, segs, size, inclusive, dist, seed, tol);
  INFO(r.summary());
  CHECK(r.pass);
}

// The algorithm and Thrust on the same data agree within the sum of their tolerances
// (bit for bit with integer inputs).
template <class OutT>
void check_against_thrust(const std::string& name, bool inclusive, std::int64_t segs, std::int64_t size,
                          tcu::Dist dist, std::uint64_t seed) {
  CAPTURE(name);
  CAPTURE(inclusive);
  CAPTURE(segs);
  CAPTURE(size);
  CAPTURE(sizeof(OutT));
  const auto got = run_on_device<OutT>(name, inclusive, segs, size, dist, seed);
  const auto want = run_on_device<OutT>("thrust_scan_by_key", inclusive, segs, size, dist, seed);
  const bool ints = dist == tcu::Dist::integers;
  const tcu::Tolerance t1 = sb::scan_tolerance(name, size, out_type_of<OutT>(), ints);
  const tcu::Tolerance t2 = sb::scan_tolerance("thrust_scan_by_key", size, out_type_of<OutT>(), ints);
  std::vector<__half> x(got.size());
  tcu::fill_host(x.data(), x.size(), dist, seed);
  std::vector<double> ref, mag;
  tcu::reference_segmented_scan(x.data(), segs, size, inclusive, ref, mag);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double a = tcu::to_double(got[i]), b = tcu::to_double(want[i]);
    if (!(std::fabs(a - b) <= t1.bound(ref[i], mag[i]) + t2.bound(ref[i], mag[i]))) ++bad;
  }
  CHECK(bad == 0);
}

template <class OutT>
void every_algorithm(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& counts) {
  for (const std::string& name : kTcuAlgos)
    for (bool inclusive : {true, false})
      for (std::int64_t size : sizes) {
        if (!sb::variant_supports(name, size)) continue;
        for (std::int64_t segs : counts) check_against_fp64<OutT>(name, inclusive, segs, size, tcu::Dist::uniform, 3);
        check_against_fp64<OutT>(name, inclusive, 5, size, tcu::Dist::normal, 4);
      }
}

}  // namespace

// The sanitizers run this subset; the full matrix below is [large] (too slow under them).
TEST_CASE("every algorithm, inclusive and exclusive, vs FP64: a subset of the sizes, both outputs") {
  every_algorithm<__half>({1, 17, 257, 4097}, {0, 7});
  every_algorithm<float>({3, 16, 256, 1000}, {1, 7});
}

TEST_CASE("every algorithm, inclusive and exclusive, listed sizes and counts 0, 1, 7 vs FP64 [large]") {
  every_algorithm<__half>(kSizes, {0, 1, 7});
  every_algorithm<float>(kSizes, {0, 1, 7});
}

// scan256_pipelined takes power-of-two segment sizes only (the listed sizes give it 16 and 256):
// every one of them from 16 to 8192, counts that leave a partial round and a partial tile
// walk, a round that ends inside the array, inclusive and exclusive, integers bit for bit,
// unaligned pointers.
TEST_CASE("scan256_pipelined(_shfl): power-of-two segments 16 ... 8192, counts, integers, unaligned pointers") {
  for (const std::string& name : kPipelined) {
  for (std::int64_t size = 16; size <= 8192; size *= 2)
    for (bool inclusive : {true, false}) {
      for (std::int64_t segs : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}})
        check_against_fp64<__half>(name, inclusive, segs, size, tcu::Dist::uniform, 81);
      check_against_fp64<float>(name, inclusive, size < 2048 ? 2048 / size + 3 : 2, size, tcu::Dist::integers, 82);
      if (size * tcu::kIntDistBound <= 2048)
        check_against_fp64<__half>(name, inclusive, 9, size, tcu::Dist::integers, 83);
      check_against_fp64<float>(name, inclusive, 3, size, tcu::Dist::normal, 84, 1, 3);
      check_against_fp64<__half>(name, inclusive, 3, size, tcu::Dist::uniform, 85, 5, 1);
    }
  CHECK_FALSE(sb::variant_supports(name, 8));
  CHECK_FALSE(sb::variant_supports(name, 48));
  CHECK_FALSE(sb::variant_supports(name, 1000));
  }
  tcu::DeviceBuffer<__half> d_in(64);
  tcu::DeviceBuffer<float> d_out(64);
  CHECK(tcu::segmented_inclusive_scan_sum(ScanAlgorithm::scan256_pipelined, d_in.data(), d_out.data(), 1, 48) ==
        cudaErrorInvalidValue);
  CHECK(tcu::segmented_exclusive_scan_sum(ScanAlgorithm::scan256_pipelined_shfl, d_in.data(), d_out.data(), 1, 24) ==
        cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("scan256_pipelined(_shfl): many segments (several rounds per warp) vs Thrust [large]") {
  for (const std::string& name : kPipelined)
  for (std::int64_t size : {32, 512, 4096})
    for (bool inclusive : {true, false}) {
      check_against_thrust<__half>(name, inclusive, (1 << 21) / size + 1, size, tcu::Dist::uniform, 86);
      check_against_thrust<float>(name, inclusive, (1 << 21) / size + 1, size, tcu::Dist::integers, 87);
    }
}

TEST_CASE("every algorithm vs Thrust on the same data, bit for bit with integers") {
  for (const std::string& name : kTcuAlgos)
    for (std::int64_t size : {17, 257}) {
      if (!sb::variant_supports(name, size)) continue;
      check_against_thrust<float>(name, true, 3, size, tcu::Dist::integers, 14);
      check_against_thrust<__half>(name, false, 3, size, tcu::Dist::uniform, 15);
    }
}

TEST_CASE("every algorithm vs Thrust on the same data, more sizes [large]") {
  for (const std::string& name : kTcuAlgos)
    for (bool inclusive : {true, false})
      for (std::int64_t size : {3, 17, 256, 1000, 4097}) {
        if (!sb::variant_supports(name, size)) continue;
        check_against_thrust<__half>(name, inclusive, 7, size, tcu::Dist::uniform, 11);
        check_against_thrust<float>(name, inclusive, 7, size, tcu::Dist::normal, 12);
        check_against_thrust<float>(name, inclusive, 7, size, tcu::Dist::integers, 13);
      }
}

TEST_CASE("integer inputs: bit-exact (fp32 out always, fp16 out while |prefix| <= 2048) [large]") {
  for (const std::string& name : kTcuAlgos)
    for (bool inclusive : {true, false})
      for (std::int64_t size : {1, 16, 17, 256, 257, 4097, 9000}) {
        if (!sb::variant_supports(name, size)) continue;
        const std::int64_t segs = size > 4096 ? 2 : 7;
        check_against_fp64<float>(name, inclusive, segs, size, tcu::Dist::integers, 21);
        if (size * tcu::kIntDistBound <= 2048)
          check_against_fp64<__half>(name, inclusive, segs, size, tcu::Dist::integers, 22);
      }
}

TEST_CASE("unaligned input and output pointers (staged through shared memory)") {
  for (const std::string& name : kTcuAlgos)
    for (std::int64_t size : {3, 17, 256, 4097}) {
      if (!sb::variant_supports(name, size)) continue;
      check_against_fp64<__half>(name, true, 3, size, tcu::Dist::uniform, 33, 1, 5);
      check_against_fp64<float>(name, false, 3, size, tcu::Dist::integers, 34, 3, 1);
    }
}

TEST_CASE("unaligned pointers, every offset pair [large]") {
  for (const std::string& name : kTcuAlgos)
    for (std::int64_t size : {3, 16, 17, 256, 1000, 4097})
      for (int in_off : {1, 3})
        for (int out_off : {1, 5}) {
          if (!sb::variant_supports(name, size)) continue;
          check_against_fp64<__half>(name, true, 5, size, tcu::Dist::uniform, 31, in_off, out_off);
          check_against_fp64<float>(name, false, 5, size, tcu::Dist::integers, 32, in_off, out_off);
        }
}

TEST_CASE("segments longer than a block's piece (carried across pieces) and random sizes [large]") {
  for (const std::string& name :
       std::vector<std::string>{name_of(ScanAlgorithm::scan256n), name_of(ScanAlgorithm::scan16n),
                                name_of(ScanAlgorithm::scan256_block), name_of(ScanAlgorithm::matmulscan),
                                name_of(ScanAlgorithm::scan256_pipelined),
                                name_of(ScanAlgorithm::scan256_pipelined_shfl), name_of(ScanAlgorithm::automatic)})
    for (std::int64_t size : {8191, 8192, 12289}) {
      if (!sb::variant_supports(name, size)) continue;
      check_against_fp64<float>(name, true, 2, size, tcu::Dist::uniform, 41);
      check_against_fp64<__half>(name, false, 2, size, tcu::Dist::normal, 42);
    }
  std::uint64_t state = 2026;
  for (int i = 0; i < 6; ++i) {
    state = tcu::splitmix64(state);
    const std::int64_t size = 1 + static_cast<std::int64_t>(state % 3000);
    for (const std::string& name : kTcuAlgos)
      if (sb::variant_supports(name, size)) check_against_fp64<float>(name, i % 2 == 0, 3, size, tcu::Dist::normal, state);
  }
}

TEST_CASE("baselines vs FP64 (they are what the speed-ups are measured against)") {
  for (const std::string& name : kBaselines)
    for (bool inclusive : {true, false})
      for (std::int64_t size : {1, 17, 256, 1000, 4097}) {
        check_against_fp64<__half>(name, inclusive, 7, size, tcu::Dist::uniform, 51);
        check_against_fp64<float>(name, inclusive, 7, size, tcu::Dist::integers, 52);
      }
}

TEST_CASE("public API: inclusive and exclusive, both output types, zero segments, invalid arguments") {
  tcu::DeviceBuffer<__half> d_in(1000);
  tcu::DeviceBuffer<float> d_out(1000);
  tcu::fill_device(d_in.data(), 1000, tcu::Dist::integers, 61);
  tcu::poison_device(d_out.data(), d_out.bytes());
  REQUIRE(tcu::segmented_inclusive_scan_sum(d_in.data(), d_out.data(), 10, 100) == cudaSuccess);
  std::vector<float> h(1000);
  d_out.copy_to_host(h.data(), 1000);
  CHECK(sb::verify_segments(h.data(), 0, 10, 100, true, tcu::Dist::integers, 61, tcu::exact_tolerance()).pass);
  REQUIRE(tcu::segmented_exclusive_scan_sum(d_in.data(), reinterpret_cast<__half*>(d_out.data()), 10, 100) ==
          cudaSuccess);
  std::vector<__half> hh(1000);
  TCU_CUDA_CHECK(cudaMemcpy(hh.data(), d_out.data(), 2000, cudaMemcpyDeviceToHost));
  CHECK(sb::verify_segments(hh.data(), 0, 10, 100, false, tcu::Dist::integers, 61, tcu::exact_tolerance()).pass);
  CHECK(tcu::segmented_inclusive_scan_sum(d_in.data(), d_out.data(), 0, 100) == cudaSuccess);
  CHECK(tcu::segmented_inclusive_scan_sum(d_in.data(), d_out.data(), 10, 0) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_exclusive_scan_sum(d_in.data(), d_out.data(), -1, 10) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_exclusive_scan_sum<float>(nullptr, d_out.data(), 1, 10) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_inclusive_scan_sum(ScanAlgorithm::scan16, d_in.data(), d_out.data(), 1, 17) ==
        cudaErrorInvalidValue);
  // The explicit overloads run what they name: scan256 on 10 × 100, bit-exact with integers.
  tcu::poison_device(d_out.data(), d_out.bytes());
  REQUIRE(tcu::segmented_exclusive_scan_sum(ScanAlgorithm::scan256, d_in.data(), d_out.data(), 10, 100) ==
          cudaSuccess);
  d_out.copy_to_host(h.data(), 1000);
  CHECK(sb::verify_segments(h.data(), 0, 10, 100, false, tcu::Dist::integers, 61, tcu::exact_tolerance()).pass);
  CHECK(cudaGetLastError() == cudaSuccess);  // nothing was launched, no error left behind
  // A stream works like the default one.
  cudaStream_t s;
  TCU_CUDA_CHECK(cudaStreamCreate(&s));
  tcu::poison_device(d_out.data(), d_out.bytes(), s);
  REQUIRE(tcu::segmented_inclusive_scan_sum(d_in.data(), d_out.data(), 3, 333, s) == cudaSuccess);
  TCU_CUDA_CHECK(cudaStreamSynchronize(s));
  TCU_CUDA_CHECK(cudaStreamDestroy(s));
  d_out.copy_to_host(h.data(), 999);
  CHECK(sb::verify_segments(h.data(), 0, 3, 333, true, tcu::Dist::integers, 61, tcu::exact_tolerance()).pass);
}

TEST_CASE("large counts: every algorithm at 2^22 elements, and few huge segments [large]") {
  for (const std::string& name : kTcuAlgos)
    for (std::int64_t size : {16, 256, 4096, 65536, 1 << 21}) {
      if (!sb::variant_supports(name, size)) continue;
      // fp16 outputs with normal data: prefixes of uniform [0,1) data would pass 65504 at 2^21.
      check_against_fp64<__half>(name, true, (1 << 22) / size, size, tcu::Dist::normal, 71);
      check_against_fp64<float>(name, false, (1 << 22) / size, size, tcu::Dist::uniform, 72);
    }
}

// The shared split policy (common/tensor_core/tile_geometry.hpp): an fp32 value becomes an fp16 hi + lo
// operand only while |v| <= 2^15; above, the kernel finishes that product in fp32 on the CUDA
// cores. Inputs of 1000 … 4000 (integers, exact in fp16) make L·A's column sums of up to 15
// rows reach 60000, a 256-element tile total reach 10^6 and MatMulScan's partial sums likewise:
// every kernel with a split takes its fallback on these tiles (and the hi/lo split on the tiles
// of the small-valued segments next to them, in the same launch). fp32 outputs of integer sums
// below 2^24 are exact, so they must equal the FP64 reference bit for bit. (fp16 outputs would
// overflow 65504.)
namespace {

// Segments of integers scale · (1 … 4), every third segment small integers in [-4, 4].
std::vector<__half> large_integer_data(std::int64_t segs, std::int64_t size, std::uint64_t seed, double scale) {
  std::vector<__half> x(static_cast<std::size_t>(segs * size));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::uint64_t h = tcu::splitmix64(seed ^ i);
    const bool large = (static_cast<std::int64_t>(i) / size) % 3 != 1;  // every third segment small
    const double v = large ? scale * static_cast<double>(1 + h % 4) : static_cast<double>(h % 9) - 4.0;
    x[i] = tcu::from_double<__half>(v);
  }
  return x;
}

void check_large_integers(ScanAlgorithm algorithm, bool inclusive, std::int64_t segs, std::int64_t size,
                          std::uint64_t seed, double scale = 1000.0) {
  CAPTURE(tcu::scan_algorithm_name(algorithm));
  CAPTURE(inclusive);
  CAPTURE(segs);
  CAPTURE(size);
  const std::vector<__half> x = large_integer_data(segs, size, seed, scale);
  const std::size_t n = x.size();
  tcu::DeviceBuffer<__half> d_in(n);
  tcu::DeviceBuffer<float> d_out(n);
  d_in.copy_from_host(x.data(), n);
  tcu::poison_device(d_out.data(), d_out.bytes());
  const cudaError_t e =
      inclusive ? tcu::segmented_inclusive_scan_sum(algorithm, d_in.data(), d_out.data(), segs, size)
                : tcu::segmented_exclusive_scan_sum(algorithm, d_in.data(), d_out.data(), segs, size);
  REQUIRE(e == cudaSuccess);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> got(n);
  d_out.copy_to_host(got.data(), n);
  std::vector<double> ref, mag;
  tcu::reference_segmented_scan(x.data(), segs, size, inclusive, ref, mag);
  std::size_t bad = 0, first_bad = n;
  for (std::size_t i = 0; i < n; ++i)
    if (!(static_cast<double>(got[i]) == ref[i])) {
      if (bad++ == 0) first_bad = i;
    }
  const std::string first = bad == 0 ? std::string("none")
                                     : std::to_string(first_bad) + ": got " + std::to_string(got[first_bad]) +
                                           ", want " + std::to_string(ref[first_bad]);
  INFO("mismatches: " << bad << ", the first at " << first);
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("split fallback: values above 2^15 are finished in fp32, bit-exact (every kernel with a split)") {
  // Largest prefix: 1024 · 4000, far below 2^24, so every fp32 sum is exact (even a carry in
  // an MMA accumulator, Scan256N's, whose additions truncate below the running sum's ulp).
  const ScanAlgorithm with_split[] = {ScanAlgorithm::scan256, ScanAlgorithm::scan256n, ScanAlgorithm::scan256_block,
                                      ScanAlgorithm::matmulscan, ScanAlgorithm::scan256_pipelined,
                                      ScanAlgorithm::automatic};
  for (ScanAlgorithm a : with_split)
    for (bool inclusive : {true, false})
      for (std::int64_t size : {200, 256, 1024}) {
        if (!tcu::scan_algorithm_supports(a, size)) continue;
        check_large_integers(a, inclusive, 7, size, 90 + static_cast<std::uint64_t>(size));
      }
  // Longer than a slab (4096, carried across slabs): 500 … 2000, so that sums stay below 2^24;
  // tile totals and MatMulScan's partial sums still pass 2^15.
  for (ScanAlgorithm a : {ScanAlgorithm::scan256n, ScanAlgorithm::scan256_block, ScanAlgorithm::matmulscan,
                          ScanAlgorithm::automatic})
    for (bool inclusive : {true, false}) check_large_integers(a, inclusive, 3, 6000, 97, 500.0);
}

// scan_any_size (kernels/08_scan_any_size.cu) and scan_walk (09): warps walk aligned tiles of the
// array whatever the segments (rows cut at segment starts; slices whose lanes restart at heads), so every size and every phase of the segments against the tiles
// must come out right: 1 … 40, primes, the listed sizes; odd counts (partial rounds, warp
// shares of different lengths); both output types, inclusive and exclusive; integers bit for
// bit; unaligned input and output pointers; poisoned outputs (run_on_device); a stream.

TEST_CASE("scan_any_size, scan_walk: sizes 1 … 40, primes, listed sizes; odd counts; both outputs; integers exact; unaligned") {
  for (const std::string& name : {name_of(ScanAlgorithm::scan_any_size), name_of(ScanAlgorithm::scan_walk)})
    for (std::int64_t size : tcu::any_size_test_sizes()) {
      CAPTURE(name);
      REQUIRE(sb::variant_supports(name, size));
      for (bool inclusive : {true, false}) {
        for (std::int64_t segs : {std::int64_t{1}, std::int64_t{7}, std::int64_t{37}}) {
          check_against_fp64<float>(name, inclusive, segs, size, tcu::Dist::integers, 1100 + size);
          check_against_fp64<__half>(name, inclusive, segs, size, tcu::Dist::uniform, 1200 + size);
        }
        check_against_fp64<float>(name, inclusive, 9, size, tcu::Dist::normal, 1300 + size, 1, 1);
        check_against_fp64<__half>(name, inclusive, 9, size, tcu::Dist::uniform, 1400 + size, 1, 1);
        if (size * tcu::kIntDistBound <= 2048)
          check_against_fp64<__half>(name, inclusive, 11, size, tcu::Dist::integers, 1500 + size, 1, 1);
        check_against_fp64<float>(name, inclusive, 13, size, tcu::Dist::integers, 1600 + size, 1, 1);
      }
    }
}

TEST_CASE("scan_any_size, scan_walk and auto: many rounds per warp, listed sizes, vs FP64") {
  for (const std::string& name : {name_of(ScanAlgorithm::scan_any_size), name_of(ScanAlgorithm::scan_walk),
                                  name_of(ScanAlgorithm::automatic)})
    for (std::int64_t size : {17, 24, 48, 96, 100, 200, 255, 257, 1000, 3000, 5000, 12345})
      for (bool inclusive : {true, false}) {
        const std::int64_t segs = ((std::int64_t{1} << 21) / size) | 1;
        check_against_fp64<float>(name, inclusive, segs, size, tcu::Dist::integers, 1700 + size);
        check_against_fp64<__half>(name, inclusive, segs, size, tcu::Dist::normal, 1800 + size, 1, 1);
        check_against_fp64<float>(name, inclusive, segs, size, tcu::Dist::uniform, 1900 + size);
      }
}

TEST_CASE("scan_any_size, scan_walk: a non-default stream, d_out + 1, integers bit for bit") {
  for (ScanAlgorithm a : {ScanAlgorithm::scan_any_size, ScanAlgorithm::scan_walk})
    for (std::int64_t size : {9, 17, 100, 1000, 4099}) {
      const std::int64_t segs = 333;
      const std::size_t n = static_cast<std::size_t>(segs * size);
      tcu::DeviceBuffer<__half> d_in(n);
      tcu::DeviceBuffer<float> d_out(n + 2);
      cudaStream_t s;
      TCU_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      // The input on `s` too: a non-blocking stream does not wait for the legacy default stream.
      tcu::fill_device(d_in.data(), n, tcu::Dist::integers, 2000 + size, s);
      for (bool inclusive : {true, false}) {
        tcu::poison_device(d_out.data(), d_out.bytes(), s);
        const cudaError_t e =
            inclusive ? tcu::segmented_inclusive_scan_sum(a, d_in.data(), d_out.data() + 1, segs, size, s)
                      : tcu::segmented_exclusive_scan_sum(a, d_in.data(), d_out.data() + 1, segs, size, s);
        REQUIRE(e == cudaSuccess);
        TCU_CUDA_CHECK(cudaStreamSynchronize(s));
        std::vector<float> h(n + 2);
        d_out.copy_to_host(h.data(), n + 2);
        CAPTURE(name_of(a));
        CAPTURE(size);
        CAPTURE(inclusive);
        CHECK(std::isnan(h[0]));
        CHECK(std::isnan(h[n + 1]));
        CHECK(sb::verify_segments(h.data() + 1, 0, segs, size, inclusive, tcu::Dist::integers, 2000 + size,
                                  tcu::exact_tolerance())
                  .pass);
      }
      TCU_CUDA_CHECK(cudaStreamDestroy(s));
    }
}
