#pragma once
// The chapter's measurements beyond the sweep (sweep.hpp), as library functions main.cu calls:
//   run_accuracy       Navarro's study: relative error of whole-array sums vs FP64 for
//                      normal(0,1) and uniform[0,1], n = 2^10 … 2^max, every variant and CUB
//   run_energy         NVML energy per element around the timed loop (n/a where the driver's
//                      NVML cannot be opened: bench/energy_counter.hpp)
#include <cstdint>
#include <string>
#include <vector>

#include "03_tcu_reduction/bench/sweep.hpp"
#include "common/report.hpp"

namespace tcu::bench::reduce {

struct AccuracyOptions {
  int lo = 10, hi = 28, step = 2;  // n = 2^lo, 2^(lo+step), … 2^hi
  std::uint64_t seed = 1;
  bool progress = true;
};
// Columns algo,dist,n,rel_err,result,reference.
Table run_accuracy(const AccuracyOptions& opts);

struct EnergyOptions {
  std::int64_t n = std::int64_t(1) << 28;
  std::vector<std::int64_t> segment_sizes{16, 256, 4096};
  double seconds = 1.0;  // length of each measured loop
  std::uint64_t seed = 1;
  int device = 0;
};
// Columns algo,segment_size,n,ms,energy_nj_per_elem,avg_power_w,inst_per_elem (the last left
// empty: the device script fills it from ncu). Energy columns are empty (n/a) without NVML;
// nvml_status says why.
Table run_energy(const EnergyOptions& opts, std::string& nvml_status);

}  // namespace tcu::bench::reduce
