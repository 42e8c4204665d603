// tcu::multi_gpu's host maths (no GPU needed): shard boundaries for any n and any number of
// GPUs, the carry of each rank, the byte model and its speed-up bounds, the tolerances, and the
// streaming FP64 reference the benchmark checks scans with.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "05_block_grid/bench/measure.hpp"
#include "05_block_grid/multi_gpu/measure.hpp"
#include "05_block_grid/multi_gpu/partition.hpp"
#include "common/data.cuh"
#include "common/reference.hpp"

namespace mg = tcu::multi_gpu;
namespace mb = tcu::multi_gpu::bench;
using tcu::Dist;

TEST_CASE("shards: contiguous, in rank order, covering the array, sizes differing by at most one") {
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(2), std::int64_t(3), std::int64_t(17),
                         std::int64_t(1000003), (std::int64_t(1) << 31) + 5, (std::int64_t(1) << 33) - 1}) {
    for (int ranks = 1; ranks <= 9; ++ranks) {
      INFO("n = " << n << ", ranks = " << ranks);
      std::int64_t next = 0, lo = n, hi = 0;
      for (int r = 0; r < ranks; ++r) {
        const mg::ShardRange s = mg::shard_of(n, ranks, r);
        CHECK(s.first == next);
        CHECK(s.count >= 0);
        next = s.first + s.count;
        lo = std::min(lo, s.count);
        hi = std::max(hi, s.count);
        if (r > 0) CHECK(s.count <= mg::shard_of(n, ranks, r - 1).count);  // the longer shards first
      }
      CHECK(next == n);
      CHECK(hi - lo <= 1);
      const std::vector<std::int64_t> c = mg::shard_counts(n, ranks);
      CHECK(c.size() == static_cast<std::size_t>(ranks));
    }
  }
  CHECK(mg::shard_of(5, 2, 0).count == 3);
  CHECK(mg::shard_of(5, 2, 1).first == 3);
  CHECK(mg::shard_of(1, 4, 3).count == 0);  // more GPUs than elements: empty shards
  CHECK_THROWS(mg::shard_of(-1, 2, 0));
  CHECK_THROWS(mg::shard_of(10, 0, 0));
  CHECK_THROWS(mg::shard_of(10, 2, 2));
}

TEST_CASE("carries: rank r starts from the totals of ranks 0 … r−1, added in rank order in double") {
  const std::vector<float> totals{3.0f, -1.5f, 7.0f, 0.0f};
  const std::vector<float> c = mg::exclusive_carries(totals);
  REQUIRE(c.size() == 4);
  CHECK(c[0] == 0.0f);
  CHECK(c[1] == 3.0f);
  CHECK(c[2] == 1.5f);
  CHECK(c[3] == 8.5f);
  // Rank 0's exclusive scan starts with 0, rank r's with its carry; the sum is the carry past the last.
  CHECK(mg::sum_in_rank_order(totals.data(), 4) == 8.5f);
  CHECK(mg::sum_in_rank_order(totals.data(), 0) == 0.0f);
  // In double, rounded once: 2^24 + 1 + 1 keeps both ones (fp32 step by step would lose them).
  const std::vector<float> big{16777216.0f, 1.0f, 1.0f};
  CHECK(mg::sum_in_rank_order(big.data(), 3) == 16777218.0f);
  float step = 0.0f;
  for (float v : big) step += v;
  CHECK(step == 16777216.0f);
  // The same totals give the same carries, whatever order they arrived in (they are indexed by rank).
  CHECK(mg::exclusive_carries(totals) == c);
}

TEST_CASE("which ranks reduce their shard: all for a sum, all but the last for a scan") {
  CHECK(mg::rank_needs_total(0, 1, false));
  CHECK_FALSE(mg::rank_needs_total(0, 1, true));  // one GPU: the scan alone
  CHECK(mg::rank_needs_total(0, 2, true));
  CHECK_FALSE(mg::rank_needs_total(1, 2, true));
  CHECK(mg::rank_needs_total(1, 2, false));
}

TEST_CASE("the byte model: 2 bytes per element to sum, 6 to scan on one GPU, 8 across GPUs") {
  CHECK(mg::kReduceBytesPerElem == 2.0);
  CHECK(mg::kScanBytesPerElemOneGpu == 6.0);
  CHECK(mg::kScanBytesPerElemMultiGpu == 8.0);
  CHECK(mg::scan_bytes_per_elem(1) == 6.0);
  CHECK(mg::scan_bytes_per_elem(2) == 8.0);
  CHECK(mg::scan_speedup_bound(1) == 1.0);
  CHECK(mg::scan_speedup_bound(2) == doctest::Approx(1.5));
  CHECK(mg::scan_speedup_bound(4) == doctest::Approx(3.0));
  CHECK(mg::scan_speedup_bound(8) == doctest::Approx(6.0));
  CHECK(mg::reduce_speedup_bound(2) == 2.0);
}

TEST_CASE("tolerances: exact for integer data within 2^24, derived bounds otherwise") {
  CHECK(mb::exact_for(Dist::integers, 16777216.0));
  CHECK_FALSE(mb::exact_for(Dist::integers, 16777217.0));
  CHECK_FALSE(mb::exact_for(Dist::uniform, 10.0));
  const std::int64_t s = std::int64_t(1) << 30;
  // The multi-GPU scan's bound holds the one-GPU scan's plus the carry's.
  CHECK(mb::scan_tolerance(s).rel_to_magnitude > tcu::bench::device::scan_tolerance(s, false).rel_to_magnitude);
  CHECK(mb::sum_tolerance(s).rel_to_magnitude > tcu::bench::device::reduce_tolerance(s).rel_to_magnitude);
  CHECK(mb::scan_tolerance(s).rel_to_magnitude < 1e-4);
  CHECK_FALSE(mb::sum_tolerance(17).exact());
}

TEST_CASE("--op names") {
  CHECK(mb::ops_for("reduce").size() == 1);
  CHECK(mb::ops_for("scan").size() == 2);
  CHECK(mb::ops_for("from_host").size() == 2);
  CHECK(mb::ops_for("all").size() == 5);
  CHECK(mb::ops_for("nonsense").empty());
  CHECK(std::string(mb::op_name(mb::Op::inclusive_scan_from_host)) == "scan_from_host");
}

TEST_CASE("the data on several threads equals the data on one") {
  const std::int64_t n = 100003;
  std::vector<__half> a(n), b(n);
  tcu::fill_host(a.data(), a.size(), Dist::normal, 9, 1234);
  mb::fill_host_parallel(b.data(), n, Dist::normal, 9, 1234, 7);
  CHECK(std::memcmp(a.data(), b.data(), n * 2) == 0);
}

TEST_CASE("the streaming FP64 reference agrees with the full one, and finds a wrong element") {
  const std::int64_t n = 3 * mb::PrefixReference::kBlock + 17;
  std::vector<__half> x(n);
  tcu::fill_host(x.data(), x.size(), Dist::uniform, 5);
  const mb::PrefixReference ref(x.data(), n, 4);
  const tcu::SumRef total = tcu::reference_sum(x.data(), x.size());
  CHECK(ref.total().sum == doctest::Approx(total.sum).epsilon(1e-14));
  CHECK(ref.total().abs_sum == doctest::Approx(total.abs_sum).epsilon(1e-14));
  const tcu::Tolerance one_rounding = tcu::tolerance_for_accumulation(1, tcu::NumType::fp32, tcu::NumType::fp32);
  for (bool inclusive : {true, false}) {
    std::vector<double> want, mag;
    tcu::reference_segmented_scan(x.data(), 1, n, inclusive, want, mag);
    std::vector<float> got(want.begin(), want.end());  // the exact prefixes rounded to fp32
    for (std::int64_t first : {std::int64_t(0), std::int64_t(1), mb::PrefixReference::kBlock - 3, n - 100}) {
      const std::int64_t count = n - first;
      INFO("first " << first << (inclusive ? " inclusive" : " exclusive"));
      const tcu::VerifyResult r = ref.check_scan(got.data() + first, first, count, inclusive, one_rounding);
      CHECK(r.pass);
      CHECK(r.count == static_cast<std::size_t>(count));
    }
    std::vector<float> bad = got;
    bad[mb::PrefixReference::kBlock + 5] += 1.0f;
    bad[n - 1] = NAN;
    const tcu::VerifyResult r = ref.check_scan(bad.data(), 0, n, inclusive, one_rounding);
    CHECK_FALSE(r.pass);
    CHECK(r.first_bad == mb::PrefixReference::kBlock + 5);
    CHECK(r.mismatches == 1);
    CHECK(r.non_finite == 1);
  }
  CHECK_THROWS(ref.check_scan(nullptr, n - 1, 2, true, one_rounding));
}

TEST_CASE("the streaming reference with integer data: exact prefixes, bit for bit") {
  const std::int64_t n = 200003;
  std::vector<__half> x(n);
  tcu::fill_host(x.data(), x.size(), Dist::integers, 11);
  const mb::PrefixReference ref(x.data(), n, 3);
  std::vector<float> got;
  double acc = 0;
  for (const __half& v : x) {
    acc += static_cast<double>(__half2float(v));
    got.push_back(static_cast<float>(acc));
  }
  CHECK(ref.check_scan(got.data(), 0, n, true, tcu::exact_tolerance()).pass);
  got[777] += 1.0f;
  CHECK_FALSE(ref.check_scan(got.data(), 0, n, true, tcu::exact_tolerance()).pass);
}
