// Chapter 06, host tests (no GPU needed): the phase accounting, medians, the size plan and
// the memory checks, the platform explanation, the CSV shape, and the CPU sums.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "05_block_grid/tcu_device.cuh"
#include "06_jetson_unified_memory/host_data.hpp"
#include "06_jetson_unified_memory/memory_budget.hpp"
#include "06_jetson_unified_memory/phase_clock.hpp"
#include "06_jetson_unified_memory/platform.hpp"
#include "06_jetson_unified_memory/unified_memory.hpp"
#include "06_jetson_unified_memory/workflow.hpp"
#include "common/data.cuh"
#include "common/reference.hpp"

namespace um = tcu::unified_memory;
using um::Phase;

namespace {
constexpr std::uint64_t kMiB = std::uint64_t(1) << 20;
constexpr std::uint64_t kGiB = std::uint64_t(1) << 30;

// A clock that returns the times it is given, one per call.
struct ScriptedClock {
  std::vector<double> ticks;
  std::size_t next = 0;
  double operator()() { return ticks.at(next++); }
};
}  // namespace

TEST_CASE("PhaseClock charges each interval to the phase it ends, skips go to no phase") {
  auto script = std::make_shared<ScriptedClock>();
  script->ticks = {100, 103, 110, 111, 120, 150, 151, 152};
  um::PhaseClock clock([script] { return (*script)(); });
  clock.start();                       // 100
  clock.end_phase(Phase::alloc);       // 103: alloc 3
  clock.end_phase(Phase::fill);        // 110: fill 7
  clock.skip();                        // 111: 1 ms of bookkeeping
  clock.end_phase(Phase::kernel);      // 120: kernel 9
  clock.end_phase(Phase::kernel);      // 150: kernel + 30 = 39
  clock.end_phase(Phase::readback);    // 151: readback 1
  const um::PhaseTimes t = clock.finish();  // 152
  CHECK(t.alloc_ms == 3);
  CHECK(t.fill_ms == 7);
  CHECK(t.transfer_ms == 0);  // never ended: a mode without a transfer reports 0
  CHECK(t.kernel_ms == 39);
  CHECK(t.readback_ms == 1);
  CHECK(t.total_ms == 52);
  CHECK(t.phase_sum() == 50);
  CHECK(t.total_ms - t.phase_sum() == 2);  // the skip and the gap before finish
}

TEST_CASE("PhaseClock refuses marks before start and restarts cleanly") {
  um::PhaseClock clock([] { return 0.0; });
  CHECK_THROWS_AS(clock.end_phase(Phase::fill), std::logic_error);
  CHECK_THROWS_AS(clock.finish(), std::logic_error);
  double now = 0;
  um::PhaseClock c2([&now] { return now; });
  c2.start();
  now = 5;
  c2.end_phase(Phase::fill);
  c2.finish();
  c2.start();  // a second workflow starts from zero
  now = 6;
  c2.end_phase(Phase::alloc);
  const um::PhaseTimes t = c2.finish();
  CHECK(t.fill_ms == 0);
  CHECK(t.alloc_ms == 1);
  CHECK(t.total_ms == 1);
}

TEST_CASE("steady_now_ms is monotonic") {
  const double a = um::steady_now_ms();
  const double b = um::steady_now_ms();
  CHECK(b >= a);
}

TEST_CASE("PhaseTimes indexing by phase reaches every field") {
  um::PhaseTimes t;
  double v = 1;
  for (Phase p : um::kPhases) t[p] = v++;
  CHECK(t.alloc_ms == 1);
  CHECK(t.fill_ms == 2);
  CHECK(t.transfer_ms == 3);
  CHECK(t.kernel_ms == 4);
  CHECK(t.readback_ms == 5);
  CHECK(t.phase_sum() == 15);
  CHECK(std::string(um::phase_name(Phase::transfer)) == "transfer");
}

TEST_CASE("median_of takes the median of every field on its own") {
  std::vector<um::PhaseTimes> runs(3);
  runs[0].alloc_ms = 5; runs[1].alloc_ms = 1; runs[2].alloc_ms = 3;
  runs[0].kernel_ms = 10; runs[1].kernel_ms = 30; runs[2].kernel_ms = 20;
  runs[0].total_ms = 16; runs[1].total_ms = 32; runs[2].total_ms = 24;
  runs[0].kernel_event_ms = 9; runs[1].kernel_event_ms = 7; runs[2].kernel_event_ms = 8;
  const um::PhaseTimes m = um::median_of(runs);
  CHECK(m.alloc_ms == 3);
  CHECK(m.kernel_ms == 20);
  CHECK(m.total_ms == 24);
  CHECK(m.kernel_event_ms == 8);
  CHECK(m.fill_ms == 0);
  // Even count: the mean of the two middle values.
  runs.pop_back();
  CHECK(um::median_of(runs).alloc_ms == 3);
  CHECK_THROWS_AS(um::median_of({}), std::invalid_argument);
}

TEST_CASE("plan_sizes: defaults, --n, --bytes, the sweep, and usage errors") {
  um::SizeRequest r;
  CHECK(um::plan_sizes(r).elements == std::vector<std::int64_t>{um::kDefaultBytes / 2});
  r.n = 1000003;
  CHECK(um::plan_sizes(r).elements == std::vector<std::int64_t>{1000003});
  r = {};
  r.bytes = std::int64_t(1) << 29;
  CHECK(um::plan_sizes(r).elements == std::vector<std::int64_t>{std::int64_t(1) << 28});
  r.bytes = 3;
  CHECK(um::plan_sizes(r).error.find("even") != std::string::npos);
  r = {};
  r.n = 10;
  r.bytes = 20;
  CHECK(um::plan_sizes(r).error.find("not both") != std::string::npos);
  r = {};
  r.sweep = true;
  r.n = 10;
  CHECK(!um::plan_sizes(r).error.empty());

  r = {};
  r.sweep = true;
  r.sweep_min = um::kSweepMinBytes;
  r.sweep_max = um::kSweepMaxBytes;
  const um::SizePlan p = um::plan_sizes(r);
  CHECK(p.error.empty());
  const std::vector<std::int64_t> want = {1 << 19, 1 << 21, 1 << 23, 1 << 25, 1 << 27, 1 << 29};
  CHECK(p.elements == want);
  r.sweep_max = std::int64_t(2) << 30;  // not a power of 4 times the minimum: the end is added
  const um::SizePlan q = um::plan_sizes(r);
  CHECK(q.elements.back() == (std::int64_t(1) << 30));
  CHECK(q.elements.size() == 7);
  r.sweep_max = 1;
  CHECK(!um::plan_sizes(r).error.empty());
}

TEST_CASE("check_fits on a discrete GPU: GPU memory (managed too) and host memory separately") {
  um::MemoryBudget b;
  b.gpu_free = 10 * kGiB;
  b.gpu_total = 16 * kGiB;
  b.host_available = 20 * kGiB;
  CHECK(um::gpu_headroom(b) == 512 * kMiB);  // 5 % of 10 GiB beats the 256 MiB minimum
  CHECK(um::host_headroom(b) == 2 * kGiB);
  CHECK_FALSE(um::check_fits({4 * kGiB, 0, 4 * kGiB}, b, "x").has_value());
  CHECK_FALSE(um::check_fits({0, 9 * kGiB, 0}, b, "x").has_value());
  // Managed memory may not exceed the free GPU memory minus headroom.
  const auto managed = um::check_fits({0, 10 * kGiB, 0}, b, "managed run");
  REQUIRE(managed.has_value());
  CHECK(managed->find("managed run") == 0);
  CHECK(managed->find("never over-subscribed") != std::string::npos);
  CHECK(managed->find("10 GiB free") != std::string::npos);
  // Device plus managed add up.
  CHECK(um::check_fits({5 * kGiB, 5 * kGiB, 0}, b, "x").has_value());
  const auto host = um::check_fits({0, 0, 19 * kGiB}, b, "pinned run");
  REQUIRE(host.has_value());
  CHECK(host->find("host memory") != std::string::npos);
  CHECK(um::check_fits({std::uint64_t(1) << 42, 0, 0}, b, "x").has_value());
}

TEST_CASE("check_fits on an integrated GPU: one pool for GPU and host buffers") {
  um::MemoryBudget b;
  b.integrated = true;
  b.gpu_free = 6 * kGiB;
  b.gpu_total = 8 * kGiB;
  b.host_available = 6 * kGiB;
  // Usable: min(6 GiB - 307 MiB, 6 GiB - 614 MiB) = about 5.4 GiB, shared by both kinds.
  CHECK_FALSE(um::check_fits({2 * kGiB, 0, 2 * kGiB}, b, "x").has_value());
  const auto err = um::check_fits({3 * kGiB, 0, 3 * kGiB}, b, "x");
  REQUIRE(err.has_value());
  CHECK(err->find("shared DRAM") != std::string::npos);
}

TEST_CASE("format_bytes") {
  CHECK(um::format_bytes(3) == "3 B");
  CHECK(um::format_bytes(kMiB) == "1 MiB");
  CHECK(um::format_bytes(512 * kMiB) == "512 MiB");
  CHECK(um::format_bytes(3 * kGiB / 2) == "1.5 GiB");
}

TEST_CASE("explain_ranking differs for integrated and discrete GPUs") {
  um::Platform jetson;
  jetson.integrated = true;
  jetson.managed_memory = true;
  jetson.concurrent_managed_access = false;
  const std::string j = um::explain_ranking(jetson);
  CHECK(j.find("share the same DRAM") != std::string::npos);
  CHECK(j.find("managed_prefetch mode is skipped") != std::string::npos);
  um::Platform h100;
  h100.concurrent_managed_access = true;
  h100.managed_memory = true;
  const std::string h = um::explain_ranking(h100);
  CHECK(h.find("PCIe") != std::string::npos);
  CHECK(h.find("skipped") == std::string::npos);
  CHECK(um::describe_platform(jetson).find("integrated=1") != std::string::npos);
}

TEST_CASE("the prefetch mode is skipped without concurrentManagedAccess, with the message") {
  um::Platform jetson;
  jetson.integrated = true;
  jetson.managed_memory = true;
  jetson.can_map_host_memory = true;
  const auto prefetch = um::make_managed_prefetch_mode();
  const auto why = prefetch->unsupported(jetson);
  REQUIRE(why.has_value());
  CHECK(why->find("skipped: not supported on this GPU (e.g. Jetson)") == 0);
  CHECK_FALSE(um::make_managed_mode()->unsupported(jetson).has_value());
  CHECK_FALSE(um::make_zero_copy_mode()->unsupported(jetson).has_value());
  jetson.concurrent_managed_access = true;
  CHECK_FALSE(prefetch->unsupported(jetson).has_value());

  // The workflow reports the skip instead of running anything.
  jetson.concurrent_managed_access = false;
  um::Workload w;
  w.n = 1000;
  const um::ModeReport r = um::measure(*prefetch, w, jetson, tcu::SumRef{}, {});
  CHECK(r.skipped);
  CHECK(r.note == *why);
  CHECK(um::csv_table({r}).rows().empty());
  CHECK(um::text_table({r}, 0).to_text().find("SKIP (skipped: not supported") != std::string::npos);
}

TEST_CASE("mode names, order and memory needs") {
  const std::vector<std::string> want = {"pageable", "pinned", "managed", "managed_prefetch",
                                         "zero_copy", "cpu_serial", "cpu_openmp"};
  CHECK(um::mode_names() == want);
  const std::int64_t n = 1000;
  for (const auto& m : um::make_modes()) {
    const um::MemoryNeed need = m->memory_need(n);
    CHECK_MESSAGE(need.device + need.managed + need.host >= 2000, m->name());
    CHECK(m->on_gpu() == (m->name().rfind("cpu_", 0) != 0));
  }
  CHECK(um::make_managed_mode()->memory_need(n).managed >= 2000);
  CHECK(um::make_managed_mode()->memory_need(n).device == 0);
  CHECK(um::make_zero_copy_mode()->memory_need(n).device == 0);
  CHECK(um::make_pageable_mode()->memory_need(n).device >= 2000);
}

TEST_CASE("csv_table has exactly the chapter's columns; CPU rows leave the GPU phases empty") {
  um::ModeReport gpu;
  gpu.mode = "pinned";
  gpu.n = 1 << 20;
  gpu.verified = true;
  gpu.median.alloc_ms = 1.5;
  gpu.median.transfer_ms = 0.25;
  gpu.median.total_ms = 4;
  um::ModeReport cpu;
  cpu.mode = "cpu_serial";
  cpu.on_gpu = false;
  cpu.n = 1 << 20;
  cpu.verified = true;
  cpu.pass = false;
  cpu.median.kernel_ms = 2;
  um::ModeReport unverified = gpu;
  unverified.verified = false;
  const std::string csv = um::csv_table({gpu, cpu, unverified}).to_csv();
  CHECK(csv.substr(0, csv.find('\n')) == um::kCsvHeader);
  CHECK(csv.find("\npinned,2097152,1.5,0,0.25,0,0,4,true\n") != std::string::npos);
  CHECK(csv.find("\ncpu_serial,2097152,0,0,,2,,0,false\n") != std::string::npos);
  CHECK(csv.find("\npinned,2097152,1.5,0,0.25,0,0,4,\n") != std::string::npos);
}

TEST_CASE("text_table: speed-up against pageable of the same size, bandwidth share, verdicts") {
  um::ModeReport pageable;
  pageable.mode = "pageable";
  pageable.n = 1 << 28;
  pageable.verified = true;
  pageable.median.total_ms = 100;
  pageable.median.kernel_event_ms = 0.5;  // 2^29 bytes in 0.5 ms = 1073.7 GB/s
  um::ModeReport managed = pageable;
  managed.mode = "managed";
  managed.median.total_ms = 50;
  const tcu::Table t = um::text_table({pageable, managed}, 2147.48);
  REQUIRE(t.rows().size() == 2);
  const auto& cols = t.columns();
  auto col = [&](const std::string& name) {
    for (std::size_t i = 0; i < cols.size(); ++i)
      if (cols[i].name == name) return i;
    FAIL("no column " << name);
    return std::size_t(0);
  };
  CHECK(std::get<double>(t.rows()[0][col("vs pageable")]) == doctest::Approx(1.0));
  CHECK(std::get<double>(t.rows()[1][col("vs pageable")]) == doctest::Approx(2.0));
  CHECK(std::get<double>(t.rows()[0][col("kernel GB/s")]) == doctest::Approx(1073.74).epsilon(1e-4));
  CHECK(std::get<double>(t.rows()[0][col("% of read stream")]) == doctest::Approx(50.0).epsilon(1e-3));
  CHECK(std::get<bool>(t.rows()[1][col("result")]));
}

TEST_CASE("fill_host_parallel writes exactly what fill_host writes") {
  for (std::size_t n : {std::size_t(1), std::size_t(17), std::size_t(100003)}) {
    std::vector<__half> a(n), b(n);
    um::fill_host_parallel(a.data(), n, tcu::Dist::normal, 42);
    tcu::fill_host(b.data(), n, tcu::Dist::normal, 42);
    bool same = true;
    for (std::size_t i = 0; i < n; ++i) same = same && (__half_as_ushort(a[i]) == __half_as_ushort(b[i]));
    CHECK_MESSAGE(same, n);
  }
}

TEST_CASE("CPU sums: exact on integers, within the derived tolerance on random data") {
  const std::size_t n = 1000003;
  std::vector<__half> x(n);
  um::fill_host_parallel(x.data(), n, tcu::Dist::integers, 7);
  const tcu::SumRef ref = tcu::reference_sum(x.data(), n);
  CHECK(um::cpu_sum_serial(x.data(), n) == ref.sum);
  CHECK(um::cpu_sum_openmp(x.data(), n) == ref.sum);
  CHECK(um::reference_sum_parallel(x.data(), n).sum == ref.sum);

  um::fill_host_parallel(x.data(), n, tcu::Dist::uniform, 7);
  const tcu::SumRef r = tcu::reference_sum(x.data(), n);
  const tcu::SumRef rp = um::reference_sum_parallel(x.data(), n);
  CHECK(std::fabs(rp.sum - r.sum) <= 1e-12 * r.abs_sum);
  CHECK(rp.abs_sum == doctest::Approx(r.abs_sum).epsilon(1e-14));
  const tcu::Tolerance tol = um::make_cpu_serial_mode()->tolerance(static_cast<std::int64_t>(n));
  CHECK(std::fabs(um::cpu_sum_serial(x.data(), n) - r.sum) <= tol.bound(r.sum, r.abs_sum));
  CHECK(std::fabs(um::cpu_sum_openmp(x.data(), n) - r.sum) <= tol.bound(r.sum, r.abs_sum));
  CHECK(um::host_threads() >= 1);
}

TEST_CASE("the CPU modes run the whole workflow on the host and verify") {
  um::Workload w;
  w.n = 100003;
  w.dist = tcu::Dist::integers;
  const tcu::SumRef ref = um::reference_for(w);
  um::Platform none;  // no GPU needed
  for (const auto& m : {um::make_cpu_serial_mode(), um::make_cpu_openmp_mode()}) {
    const um::ModeReport r = um::measure(*m, w, none, ref, {0, 3, true});
    CHECK(r.pass);
    CHECK(r.sum == ref.sum);
    CHECK(r.runs == 3);
    CHECK(r.median.transfer_ms == 0);
    CHECK(r.median.readback_ms == 0);
    CHECK(r.median.total_ms >= r.median.kernel_ms);
  }
  w.n = 0;
  CHECK_THROWS_AS(um::make_cpu_serial_mode()->run(w), std::invalid_argument);
}

TEST_CASE("gpu_reduction_tolerance is chapter 05's own bound for tcu::DeviceReduce::Sum") {
  // depth = ceil(log2 n) + 8, 2u = 2^-23 per level, relative to sum |x|
  const tcu::Tolerance tiny = um::gpu_reduction_tolerance(1);
  CHECK(tiny.rationale.find("depth 8 ") == 0);
  CHECK(tiny.rel_to_magnitude == doctest::Approx(2.0 * 8 * std::ldexp(1.0, -24)));
  const tcu::Tolerance prime = um::gpu_reduction_tolerance(1000003);  // 2^19 < n < 2^20
  CHECK(prime.rationale.find("depth 28 ") == 0);
  const tcu::Tolerance large = um::gpu_reduction_tolerance(std::int64_t(1) << 28);
  CHECK(large.rationale.find("depth 36 ") == 0);
  CHECK(large.rel_to_magnitude == doctest::Approx(2.0 * 36 * std::ldexp(1.0, -24)));
  // The same numbers as chapter 05's API gives.
  CHECK(large.rel_to_magnitude == tcu::device_reduce_error_bound(std::int64_t(1) << 28).rel_to_abs_sum);
  CHECK(um::gpu_reduction_tolerance(std::int64_t(1) << 24).rel_to_magnitude <
        um::gpu_reduction_tolerance(std::int64_t(1) << 28).rel_to_magnitude);
}
