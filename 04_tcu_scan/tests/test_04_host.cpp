// Chapter 04, host tests: the CPU models of every matrix formulation (scan_model.hpp) against a
// plain prefix sum, MatMulScan for several (s, k) with its depth and product bounds, the
// algorithm choice and the API's argument checks that need no GPU.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "04_tcu_scan/bench/scan_model.hpp"
#include "04_tcu_scan/tcu_scan.cuh"
#include "common/data.cuh"
#include "common/testing/compare.hpp"
#include "common/walk_model.hpp"

namespace sm = tcu::bench::scan;
using tcu::testing::check_elements;

namespace {

// Integer-valued data: every model must match the prefix sum exactly.
std::vector<double> int_data(std::size_t n, std::uint64_t seed) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = tcu::sample_value(tcu::Dist::integers, seed, i);
  return x;
}

std::vector<double> row_prefix(const std::vector<double>& a, std::size_t row_len) {
  std::vector<double> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] + (i % row_len ? out[i - 1] : 0.0);
  return out;
}

}  // namespace

TEST_CASE("model: Scan16 = A·U scans every row of 16") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto a = int_data(256, seed);
    check_elements(sm::scan16(a), row_prefix(a, 16), "scan16(A) (want every row of 16 scanned)");
  }
}

TEST_CASE("model: U and L as drawn (the text's definitions are the transposes: the erratum)") {
  const auto u = sm::constant(tcu::tc::ConstantMatrix::U);
  const auto l = sm::constant(tcu::tc::ConstantMatrix::L);
  CHECK(u[0 * 16 + 15] == 1.0);  // U[k][j] = 1 iff k <= j: row 0 is all ones
  CHECK(u[15 * 16 + 0] == 0.0);
  CHECK(l[15 * 16 + 0] == 1.0);  // L[i][k] = 1 iff k < i: strictly lower
  CHECK(l[0 * 16 + 15] == 0.0);
  // With the text's transposed U, A·Uᵀ would give suffix sums, not prefix sums:
  std::vector<double> ut(256);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) ut[r * 16 + c] = u[c * 16 + r];
  const auto a = int_data(256, 9);
  CHECK(sm::matmul(a, ut) != row_prefix(a, 16));
}

TEST_CASE("model: L·A is the exclusive scan of every column; (L·A)·1 the rows before each row") {
  const auto a = int_data(256, 4);
  const auto la = sm::matmul(sm::constant(tcu::tc::ConstantMatrix::L), a);
  for (int c = 0; c < 16; ++c) {
    double acc = 0;
    for (int r = 0; r < 16; ++r) {
      CHECK(la[r * 16 + c] == acc);
      acc += a[r * 16 + c];
    }
  }
  const auto la1 = sm::matmul(la, sm::constant(tcu::tc::ConstantMatrix::ones));
  double before = 0;
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) CHECK(la1[r * 16 + c] == before);
    for (int c = 0; c < 16; ++c) before += a[r * 16 + c];
  }
}

TEST_CASE("model: Scan256 = A·U + (L·A)·1 is the prefix sum of the row-major tile") {
  for (std::uint64_t seed : {1u, 5u}) {
    const auto a = int_data(256, seed);
    check_elements(sm::scan256(a), sm::prefix_sum(a), "scan256(A) (want the prefix sum of the row-major tile)");
  }
}

TEST_CASE("model: Scan256 with the shared split policy: hi/lo below 2^15, the fp32 row sums above, both exact") {
  // Small integers: L·A stays far below 2^15 and splits.
  for (int rows_per_segment : {2, 16}) {
    const auto a = int_data(256, 40 + rows_per_segment);
    bool fallback = true;
    // One segment per rows_per_segment rows: the prefix sums restart every 16·rows_per_segment elements.
    CHECK(sm::scan256_split(a, rows_per_segment, &fallback) == row_prefix(a, 16 * rows_per_segment));
    CHECK_FALSE(fallback);
  }
  // Integers of 1000 … 4000 (exact in fp16): the column sums of up to 15 rows reach 60000 > 2^15,
  // so the split refuses and (L·A)·1 is summed in fp32 — still exact for integers.
  std::vector<double> big(256);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = 1000.0 * static_cast<double>(1 + i % 4);
  bool fallback = false;
  const auto got = sm::scan256_split(big, 16, &fallback);
  CHECK(fallback);
  CHECK(got == sm::prefix_sum(big));
  CHECK(tcu::tc::splits(32768.0f));
  CHECK_FALSE(tcu::tc::splits(32769.0f));
}

TEST_CASE("model: Scan256N carries the scalar in C") {
  for (std::size_t tiles : {1u, 2u, 7u}) {
    const auto x = int_data(256 * tiles, tiles);
    check_elements(sm::scan256n(x), sm::prefix_sum(x), "scan256n(x)");
  }
}

TEST_CASE("model: Scan16N (Alg. 5) carries the last column") {
  for (std::size_t len : {16u, 48u, 160u}) {
    const auto x = int_data(16 * len, len);
    const auto got = sm::scan16n(x, len);
    CHECK(got == row_prefix(x, len));
  }
}

TEST_CASE("model: block level (Alg. 7): tile totals times the strictly upper triangle") {
  for (std::size_t tiles : {1u, 3u, 16u}) {
    const auto x = int_data(256 * tiles, 100 + tiles);
    CHECK(sm::scan_block(x) == sm::prefix_sum(x));
  }
}

TEST_CASE("model: MatMulScan equals the prefix sum, depth 2k-1, products within the bound") {
  struct Sk {
    int s, k;
  };
  for (Sk p : {Sk{2, 5}, Sk{4, 3}, Sk{16, 1}, Sk{16, 2}, Sk{16, 3}, Sk{3, 4}, Sk{8, 2}}) {
    CAPTURE(p.s);
    CAPTURE(p.k);
    std::size_t n = 1;
    for (int i = 0; i < p.k; ++i) n *= static_cast<std::size_t>(p.s);
    const auto x = int_data(n, static_cast<std::uint64_t>(p.s * 10 + p.k));
    sm::MatMulScanCounts c;
    CHECK(sm::matmulscan(x, p.s, p.k, &c) == sm::prefix_sum(x));
    CHECK(c.depth == 2 * p.k - 1);
    CHECK(c.products <= c.bound);
  }
  // Random (non-integer) data: equal to rounding.
  std::vector<double> x(4096);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = tcu::sample_value(tcu::Dist::normal, 7, i);
  const auto got = sm::matmulscan(x, 16, 3), want = sm::prefix_sum(x);
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(std::fabs(got[i] - want[i]) < 1e-9);
}

TEST_CASE("MatMulScan s = 16: the counts the chapter prints") {
  sm::MatMulScanCounts c;
  sm::matmulscan(std::vector<double>(4096, 1.0), 16, 3, &c);
  CHECK(c.depth == 5);
  CHECK(c.products == 35);  // 16 + 1 + 1 (up) + 1 + 16 (down) tiles
  CHECK(c.bound == 39);     // ⌈2·4096/240⌉ + 4
}

TEST_CASE("CPU model: the walk of scan_walk (8 per lane) writes every element once, inclusive and exclusive") {
  // Integers in [-4, 4]: every prefix exact in FP64. Several warps' shares put segment starts at
  // every phase of the 256-element slices.
  for (std::int64_t s : {9, 10, 15, 16, 17, 24, 31, 33, 97, 100, 255, 256, 257, 1000, 4099}) {
    for (std::int64_t ns : {std::int64_t{1}, std::int64_t{3}, std::int64_t{37}}) {
      for (std::int64_t warps : {std::int64_t{1}, std::int64_t{5}}) {
        CAPTURE(s);
        CAPTURE(ns);
        CAPTURE(warps);
        std::vector<double> x;
        const tcu::model::WalkOutput out = tcu::model::walk_all_shares(ns, s, warps, {8, false, false}, x);
        int bad = 0;
        for (std::int64_t k = 0; k < ns; ++k) {
          double run = 0.0;
          for (std::int64_t i = k * s; i < (k + 1) * s; ++i) {
            const std::size_t e = static_cast<std::size_t>(i);
            if (out.element_writes[e] != 1 || out.exclusive[e] != run) ++bad;
            run += x[e];
            if (out.inclusive[e] != run) ++bad;
          }
        }
        CHECK(bad == 0);
      }
    }
  }
}

TEST_CASE("algorithm names, limits and the choice by segment size") {
  using tcu::ScanAlgorithm;
  const std::vector<ScanAlgorithm> all = tcu::all_scan_algorithms();
  CHECK(all.size() == 10);
  CHECK(all.front() == ScanAlgorithm::scan16);  // lesson order, automatic left out
  CHECK(all.back() == ScanAlgorithm::scan_walk);
  std::vector<ScanAlgorithm> with_auto = all;
  with_auto.push_back(ScanAlgorithm::automatic);
  for (ScanAlgorithm x : with_auto) {
    const std::optional<ScanAlgorithm> a = tcu::parse_scan_algorithm(tcu::scan_algorithm_name(x));
    REQUIRE(a.has_value());
    CHECK(*a == x);
    CHECK(std::string(tcu::scan_algorithm_description(x)).size() > 10);
  }
  CHECK(tcu::scan_algorithm_name(ScanAlgorithm::automatic) == std::string("auto"));
  CHECK(tcu::parse_scan_algorithm("automatic") == ScanAlgorithm::automatic);
  CHECK_FALSE(tcu::parse_scan_algorithm("scan17").has_value());
  CHECK(tcu::scan_algorithm_supports(ScanAlgorithm::scan16, 16));
  CHECK_FALSE(tcu::scan_algorithm_supports(ScanAlgorithm::scan16, 17));
  CHECK(tcu::scan_algorithm_supports(ScanAlgorithm::scan256, 256));
  CHECK_FALSE(tcu::scan_algorithm_supports(ScanAlgorithm::scan256, 257));
  for (ScanAlgorithm x : with_auto) CHECK_FALSE(tcu::scan_algorithm_supports(x, 0));
  for (std::int64_t s : {1, 16, 17, 256, 257, 4096, 1 << 20})
    for (bool fp32 : {false, true}) {
      const ScanAlgorithm c = tcu::choose_scan_algorithm(1000, s, fp32);
      CHECK(c != ScanAlgorithm::automatic);
      CHECK(tcu::scan_algorithm_supports(c, s));
    }
  CHECK(tcu::scan_algorithm_supports(tcu::ScanAlgorithm::scan256_pipelined, 16));
  CHECK(tcu::scan_algorithm_supports(tcu::ScanAlgorithm::scan256_pipelined, 1 << 20));
  CHECK_FALSE(tcu::scan_algorithm_supports(tcu::ScanAlgorithm::scan256_pipelined, 8));
  CHECK_FALSE(tcu::scan_algorithm_supports(tcu::ScanAlgorithm::scan256_pipelined, 257));
  CHECK(tcu::scan_algorithm_supports(tcu::ScanAlgorithm::scan256_pipelined_shfl, 4096));
  CHECK_FALSE(tcu::scan_algorithm_supports(tcu::ScanAlgorithm::scan256_pipelined_shfl, 4097));
  CHECK(tcu::choose_scan_algorithm(1, 16, false) == ScanAlgorithm::scan16);
  CHECK(tcu::choose_scan_algorithm(1, 4096, true) == ScanAlgorithm::scan256_pipelined_shfl);
  CHECK(tcu::choose_scan_algorithm(1, 4096, false) == ScanAlgorithm::scan256_pipelined_shfl);
  CHECK(tcu::choose_scan_algorithm(1, 4097, true) == ScanAlgorithm::scan256_block);  // accuracy first for fp32
  CHECK(tcu::choose_scan_algorithm(1, 1 << 17, false) == ScanAlgorithm::scan256_block);
  // Sizes that are not powers of two: scan_walk below 1024, and up to 2^16 with enough
  // segments for every resident warp (4096); else as before.
  CHECK(tcu::choose_scan_algorithm(1, 200, false) == ScanAlgorithm::scan_walk);
  CHECK(tcu::choose_scan_algorithm(1, 17, true) == ScanAlgorithm::scan_walk);
  CHECK(tcu::choose_scan_algorithm(1, 1000, false) == ScanAlgorithm::scan_walk);
  CHECK(tcu::choose_scan_algorithm(1, 1025, false) == ScanAlgorithm::scan256n);
  CHECK(tcu::choose_scan_algorithm(1, 1025, true) == ScanAlgorithm::scan256_block);
  CHECK(tcu::choose_scan_algorithm(4096, 12345, true) == ScanAlgorithm::scan_walk);
  CHECK(tcu::choose_scan_algorithm(4096, 65537, true) == ScanAlgorithm::scan256_block);
  CHECK(tcu::choose_scan_algorithm(1 << 20, 256, false) == ScanAlgorithm::scan256_pipelined_shfl);
  CHECK(tcu::scan_algorithm_supports(ScanAlgorithm::scan_any_size, 1));
  CHECK(tcu::scan_algorithm_supports(ScanAlgorithm::scan_any_size, 12345));
  CHECK(tcu::scan_algorithm_supports(ScanAlgorithm::scan_any_size, std::int64_t{1} << 30));
  CHECK_FALSE(tcu::scan_algorithm_supports(ScanAlgorithm::scan_any_size, (std::int64_t{1} << 30) + 1));
}

TEST_CASE("API: invalid arguments return cudaErrorInvalidValue before touching the GPU") {
  const __half* in = reinterpret_cast<const __half*>(std::uintptr_t{256});
  float* out = reinterpret_cast<float*>(std::uintptr_t{512});
  CHECK(tcu::segmented_inclusive_scan_sum(in, out, -1, 16) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_inclusive_scan_sum(in, out, 4, 0) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_exclusive_scan_sum<float>(nullptr, out, 4, 16) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_exclusive_scan_sum<__half>(in, nullptr, 4, 16) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_inclusive_scan_sum(in, out, std::int64_t(1) << 40, std::int64_t(1) << 40) ==
        cudaErrorInvalidValue);
  CHECK(tcu::segmented_inclusive_scan_sum(in + 0, reinterpret_cast<float*>(std::uintptr_t{514}), 4, 16) ==
        cudaErrorInvalidValue);  // a float pointer that is not 4-byte aligned
  CHECK(tcu::segmented_inclusive_scan_sum(tcu::ScanAlgorithm::scan16, in, out, 4, 17) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_exclusive_scan_sum(tcu::ScanAlgorithm::scan256, in, out, 4, 257) == cudaErrorInvalidValue);
  CHECK(tcu::segmented_inclusive_scan_sum(tcu::ScanAlgorithm::scan256_pipelined, in, out, 4, 48) ==
        cudaErrorInvalidValue);
  // Zero segments: a valid no-op, even with null pointers.
  CHECK(tcu::segmented_inclusive_scan_sum<float>(nullptr, nullptr, 0, 16) == cudaSuccess);
}
