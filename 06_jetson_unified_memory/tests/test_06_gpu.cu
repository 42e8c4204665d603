// Chapter 06, GPU tests: every mode's whole workflow gives the verified sum for 1, 1000003
// and 2^28 elements (the last named [large]: compute-sanitizer leaves it out), bit-exact on
// integer data, with phases that add up; modes this GPU cannot run are skipped with their
// message; the memory check refuses what does not fit.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "06_jetson_unified_memory/memory_budget.hpp"
#include "06_jetson_unified_memory/platform.hpp"
#include "06_jetson_unified_memory/unified_memory.hpp"
#include "06_jetson_unified_memory/workflow.hpp"
#include "common/check.cuh"

namespace um = tcu::unified_memory;

namespace {

um::Platform this_gpu() {
  int device = 0;
  TCU_CUDA_CHECK(cudaGetDevice(&device));
  return um::query_platform(device);
}

// Runs every GPU mode once on `w` and checks the result and the phase accounting.
void check_every_gpu_mode(const um::Workload& w, bool bit_exact) {
  const um::Platform platform = this_gpu();
  const tcu::SumRef ref = um::reference_for(w);
  for (const auto& mode : um::make_modes()) {
    if (!mode->on_gpu()) continue;
    CAPTURE(mode->name());
    CAPTURE(w.n);
    if (auto why = mode->unsupported(platform)) {
      MESSAGE(mode->name() << " " << *why);
      continue;
    }
    const um::RunOutcome out = mode->run(w);
    if (bit_exact) {
      CHECK(out.sum == ref.sum);
    } else {
      const tcu::Tolerance tol = mode->tolerance(w.n);
      const tcu::VerifyResult v = tcu::verify_doubles(&out.sum, &ref.sum, &ref.abs_sum, 1, tol);
      CHECK_MESSAGE(v.pass, v.summary() << " (" << tol.rationale << ")");
    }
    const um::PhaseTimes& t = out.times;
    for (um::Phase p : um::kPhases) CHECK(t[p] >= 0);
    CHECK(t.total_ms >= t.phase_sum() - 1e-9);  // the rest is bookkeeping between marks
    CHECK(t.kernel_event_ms > 0);
    CHECK(t.kernel_ms > 0);
    CHECK(t.fill_ms > 0);
    const bool moves_up_front = mode->name() == "pageable" || mode->name() == "pinned" ||
                                mode->name() == "managed_prefetch";
    CHECK((t.transfer_ms > 0) == moves_up_front);
  }
}

um::Workload workload(std::int64_t n, tcu::Dist dist, std::uint64_t seed) {
  um::Workload w;
  w.n = n;
  w.dist = dist;
  w.seed = seed;
  TCU_CUDA_CHECK(cudaGetDevice(&w.device));
  return w;
}

}  // namespace

TEST_CASE("every mode: one element") {
  check_every_gpu_mode(workload(1, tcu::Dist::uniform, 3), false);
  check_every_gpu_mode(workload(1, tcu::Dist::integers, 4), true);
}

TEST_CASE("every mode: 1000003 elements (prime), random and integer data") {
  check_every_gpu_mode(workload(1000003, tcu::Dist::uniform, 20261122), false);
  check_every_gpu_mode(workload(1000003, tcu::Dist::normal, 5), false);
  // Integers in [-4, 4]: every partial sum is an integer below 2^24, exact in fp32.
  check_every_gpu_mode(workload(1000003, tcu::Dist::integers, 6), true);
}

TEST_CASE("every mode: 2^28 elements (512 MiB) [large]") {
  check_every_gpu_mode(workload(std::int64_t(1) << 28, tcu::Dist::uniform, 1), false);
  // Integers again: every column piece, chunk partial and (for these data) running sum of the
  // second pass stays an integer below 2^24, so the sum is exact.
  check_every_gpu_mode(workload(std::int64_t(1) << 28, tcu::Dist::integers, 2), true);
}

TEST_CASE("pageable: the kernel never reads the input before cudaMemcpy's DMA has landed") {
  // Regression test: cudaMemcpy from pageable memory may return before the data has arrived,
  // and the reduction runs on another stream; without the synchronisation after the copy, one
  // 1 MiB workflow in a device run summed a partly copied input. A race shows only sometimes,
  // so run many short workflows.
  const um::Workload w = workload(std::int64_t(1) << 19, tcu::Dist::uniform, 11);
  const tcu::SumRef ref = um::reference_for(w);
  const auto mode = um::make_pageable_mode();
  const tcu::Tolerance tol = mode->tolerance(w.n);
  int failures = 0;
  for (int i = 0; i < 40; ++i) {
    const double got = mode->run(w).sum;
    failures += tcu::verify_doubles(&got, &ref.sum, &ref.abs_sum, 1, tol).pass ? 0 : 1;
  }
  CHECK(failures == 0);
}

TEST_CASE("measure: medians over fresh workflows, all verified") {
  const um::Platform platform = this_gpu();
  const um::Workload w = workload(65537, tcu::Dist::normal, 9);
  const tcu::SumRef ref = um::reference_for(w);
  for (const auto& mode : um::make_modes()) {
    CAPTURE(mode->name());
    const um::ModeReport r = um::measure(*mode, w, platform, ref, {1, 2, true});
    if (r.skipped) {
      CHECK(r.note.rfind("skipped: ", 0) == 0);
      continue;
    }
    CHECK(r.pass);
    CHECK(r.runs == 2);
    CHECK(r.median.total_ms > 0);
  }
}

TEST_CASE("the prefetch mode runs exactly where concurrentManagedAccess says so") {
  const um::Platform platform = this_gpu();
  const bool skipped = um::make_managed_prefetch_mode()->unsupported(platform).has_value();
  CHECK(skipped == !(platform.managed_memory && platform.concurrent_managed_access));
  MESSAGE(um::describe_platform(platform));
}

TEST_CASE("the memory check uses the GPU's real free memory") {
  const um::Platform platform = this_gpu();
  const um::MemoryBudget b = um::query_memory_budget(platform.integrated);
  CHECK(b.gpu_free > 0);
  CHECK(b.gpu_total >= b.gpu_free);
  CHECK(b.host_available > 0);
  CHECK_FALSE(um::check_fits(um::make_managed_mode()->memory_need(1 << 20), b, "2 MiB").has_value());
  const auto err = um::check_fits(um::make_managed_mode()->memory_need(std::int64_t(b.gpu_free)), b, "too much");
  REQUIRE(err.has_value());
  CHECK(err->find("never over-subscribed") != std::string::npos);
}

TEST_CASE("a workload with no elements is refused before any CUDA call") {
  um::Workload w = workload(1, tcu::Dist::uniform, 1);
  w.n = 0;
  for (const auto& mode : um::make_modes()) CHECK_THROWS_AS(mode->run(w), std::invalid_argument);
}
