#pragma once
// Chapter 06's public API: one workflow — the host produces n fp16 values, the GPU sums them
// with tcu::DeviceReduce::Sum (chapter 05) on tensor cores, the host reads the sum — done five ways, each a
// Mode, plus the two CPU reductions as Modes of the same shape.
//
//   auto modes = tcu::unified_memory::make_modes();          // 5 GPU modes + 2 CPU modes
//   Workload w{n, tcu::Dist::uniform, seed, device};
//   RunOutcome r = modes[0]->run(w);                          // r.times.kernel_ms, r.sum
//
// Every run allocates afresh (first-touch migration happens once per allocation, so reusing
// buffers would time a different thing), fills on the host, and frees what it allocated
// (freeing is not timed).
#include <cuda_fp16.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "06_jetson_unified_memory/memory_budget.hpp"
#include "06_jetson_unified_memory/phase_clock.hpp"
#include "06_jetson_unified_memory/platform.hpp"
#include "common/data.cuh"
#include "common/verify.hpp"

namespace tcu::unified_memory {

struct Workload {
  std::int64_t n = 0;  // fp16 elements (>= 1)
  Dist dist = Dist::uniform;
  std::uint64_t seed = 20261122;
  int device = 0;
  std::uint64_t bytes() const { return static_cast<std::uint64_t>(n) * sizeof(__half); }
};

struct RunOutcome {
  PhaseTimes times;
  double sum = 0;  // the result as the host read it
};

class Mode {
 public:
  virtual ~Mode() = default;
  virtual std::string name() const = 0;     // as in --algo and the CSV
  virtual std::string summary() const = 0;  // one line: allocation, movement, where the result lands
  virtual bool on_gpu() const { return true; }
  // Why this GPU cannot run the mode (the text starts with "skipped: "), or nullopt.
  virtual std::optional<std::string> unsupported(const Platform&) const { return std::nullopt; }
  // Peak memory of one run of n elements.
  virtual MemoryNeed memory_need(std::int64_t n) const = 0;
  // How far the result may be from the FP64 sum of n inputs (derived, see tolerance.cpp).
  virtual Tolerance tolerance(std::int64_t n) const = 0;
  // One whole workflow. Throws tcu::CudaError (CUDA), std::invalid_argument (n < 1).
  virtual RunOutcome run(const Workload& w) const = 0;
};

// The GPU modes, one file each.
std::unique_ptr<Mode> make_pageable_mode();          // mode_pageable.cu
std::unique_ptr<Mode> make_pinned_mode();            // mode_pinned.cu
std::unique_ptr<Mode> make_managed_mode();           // mode_managed.cu
std::unique_ptr<Mode> make_managed_prefetch_mode();  // mode_managed_prefetch.cu
std::unique_ptr<Mode> make_zero_copy_mode();         // mode_zero_copy.cu
// The CPU baselines (cpu_modes.cpp).
std::unique_ptr<Mode> make_cpu_serial_mode();
std::unique_ptr<Mode> make_cpu_openmp_mode();

// All seven, in the order of the tables: pageable, pinned, managed, managed_prefetch,
// zero_copy, cpu_serial, cpu_openmp.
std::vector<std::unique_ptr<Mode>> make_modes();
std::vector<std::string> mode_names();

// The tolerance of the device-wide sum (tcu::DeviceReduce::Sum) of n fp16 values into fp32:
// chapter 05's exported bound (tolerance.cpp).
Tolerance gpu_reduction_tolerance(std::int64_t n);

}  // namespace tcu::unified_memory
