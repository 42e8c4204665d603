#pragma once
// The chapter's measurements, as library functions main.cu calls (and the GPU tests reuse):
//   run_segmented      one shape or the paper's sweep (n fixed, segment size 2^lo … 2^hi):
//                      every TCU algorithm and every baseline, timed, verified → Table with
//                      algo,segment_size,n,ms,gelem_per_s,pct_of_read_bw,max_rel_err,pass
//   run_accuracy       Navarro's study: relative error of whole-array sums vs FP64 for
//                      normal(0,1) and uniform[0,1], n = 2^10 … 2^max, every variant and CUB
//   run_energy         NVML energy per element around the timed loop (n/a without NVML)
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "common/data.cuh"
#include "common/report.hpp"
#include "common/timer.cuh"

namespace tcu::reduction {

// A segmented-sum implementation under test: a TCU algorithm of the API or a baseline.
struct SegmentedVariant {
  std::string name;
  bool tcu = true;                // a tensor-core algorithm (else a baseline)
  bool deterministic = true;      // same bits every run
  std::int64_t max_segment = 0;   // sweep cap (0: none): larger sizes are skipped, see README
  std::function<bool(std::int64_t)> supports = [](std::int64_t) { return true; };  // sizes it can do
  std::function<cudaError_t(const __half*, float*, std::int64_t, std::int64_t, cudaStream_t)> run;
};

class CubTemp;
// Every TCU algorithm (fp32 accumulation; the fp16 replica is for the accuracy study only),
// then auto (the API's choice), then the four baselines. `temp` must outlive the variants.
std::vector<SegmentedVariant> segmented_variants(CubTemp& temp);
// Their names (for --algo), without needing a CubTemp.
std::vector<std::string> segmented_variant_names();

// The depth of the longest chain of roundings a variant makes on a segment of this size
// (for tcu::tolerance_for_accumulation): MMAs sum 16 products (charged 16), chains add one
// level per tile, the fp32 → fp16 split of V one more; baselines one per 8-element piece.
int error_depth(const std::string& variant, std::int64_t segment_size);

struct SegmentedOptions {
  std::int64_t n = std::int64_t(1) << 24;         // elements (the sweep: fixed total)
  std::vector<std::int64_t> segment_sizes{256};   // one, or the sweep list
  std::vector<std::string> only;                  // variant names (empty: all)
  Dist dist = Dist::uniform;
  std::uint64_t seed = 1;
  TimingConfig timing{};
  bool verify = true;
  bool progress = true;
  bool cap_slow = true;                           // apply SegmentedVariant::max_segment
  std::int64_t input_offset = 0;                  // elements: read from d_in + offset (alignment)
};

struct SegmentedReport {
  Table csv{{{"algo"}, {"segment_size"}, {"n"}, {"ms"}, {"gelem_per_s"}, {"pct_of_read_bw"}, {"max_rel_err"}, {"pass"}}};
  Table text{{{"algo"}, {"segment"}, {"n"}, {"ms", "%.4f"}, {"G elem/s", "%.1f"}, {"% read bw", "%.1f"},
              {"vs CUB seg", "%.1fx"}, {"max rel err", "%.2e"}, {"check"}}};
  double read_gb_per_s = 0;  // the probe, measured in the same run
  bool all_passed = true;
  std::vector<std::string> notes;  // skipped sizes and why
};

SegmentedReport run_segmented(const SegmentedOptions& opts, double read_gb_per_s);

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
// empty: the device script fills it from ncu). Energy columns are empty (n/a) without NVML.
Table run_energy(const EnergyOptions& opts, std::string& nvml_status);

}  // namespace tcu::reduction
