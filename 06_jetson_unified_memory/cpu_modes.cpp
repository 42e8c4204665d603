// The CPU baselines as Modes of the same shape: allocate (malloc), fill, reduce. They have no
// transfer and no read-back (the CSV leaves those cells empty); the reduction is reported in
// the kernel column.
#include <cstdlib>
#include <new>
#include <stdexcept>

#include "06_jetson_unified_memory/host_data.hpp"
#include "06_jetson_unified_memory/unified_memory.hpp"

namespace tcu::unified_memory {
namespace {

class CpuMode final : public Mode {
 public:
  using Sum = double (*)(const __half*, std::size_t);
  CpuMode(std::string name, std::string summary, Sum sum)
      : name_(std::move(name)), summary_(std::move(summary)), sum_(sum) {}
  std::string name() const override { return name_; }
  std::string summary() const override { return summary_; }
  bool on_gpu() const override { return false; }
  MemoryNeed memory_need(std::int64_t n) const override { return {0, 0, static_cast<std::uint64_t>(n) * sizeof(__half)}; }
  // fp64 accumulation whose chain is at most n additions long (serial: n - 1; OpenMP: n/threads
  // per thread plus the combination), charged 2u per addition like every other sum.
  Tolerance tolerance(std::int64_t n) const override {
    Tolerance t = tolerance_for_accumulation(1, NumType::fp64, NumType::fp64);
    t.rel_to_magnitude *= static_cast<double>(n);
    t.rationale = "a chain of at most n additions in fp64";
    return t;
  }

  RunOutcome run(const Workload& w) const override {
    if (w.n < 1) throw std::invalid_argument("a workload needs at least one element");
    const auto n = static_cast<std::size_t>(w.n);
    PhaseClock clock;
    clock.start();
    void* raw = std::malloc(n * sizeof(__half));
    if (!raw) throw std::bad_alloc();
    std::unique_ptr<__half, void (*)(void*)> x(static_cast<__half*>(raw), std::free);
    clock.end_phase(Phase::alloc);
    fill_host_parallel(x.get(), n, w.dist, w.seed);
    clock.end_phase(Phase::fill);
    RunOutcome out;
    out.sum = sum_(x.get(), n);
    clock.end_phase(Phase::kernel);
    out.times = clock.finish();
    return out;
  }

 private:
  std::string name_, summary_;
  Sum sum_;
};

}  // namespace

std::unique_ptr<Mode> make_cpu_serial_mode() {
  return std::make_unique<CpuMode>("cpu_serial", "malloc, host fill, one fp64 loop on one core", cpu_sum_serial);
}

std::unique_ptr<Mode> make_cpu_openmp_mode() {
  return std::make_unique<CpuMode>("cpu_openmp", "malloc, host fill, fp64 partial sums on every core (OpenMP)",
                                   cpu_sum_openmp);
}

std::vector<std::unique_ptr<Mode>> make_modes() {
  std::vector<std::unique_ptr<Mode>> m;
  m.push_back(make_pageable_mode());
  m.push_back(make_pinned_mode());
  m.push_back(make_managed_mode());
  m.push_back(make_managed_prefetch_mode());
  m.push_back(make_zero_copy_mode());
  m.push_back(make_cpu_serial_mode());
  m.push_back(make_cpu_openmp_mode());
  return m;
}

std::vector<std::string> mode_names() {
  std::vector<std::string> names;
  for (const auto& m : make_modes()) names.push_back(m->name());
  return names;
}

}  // namespace tcu::unified_memory
