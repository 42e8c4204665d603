#pragma once
// `05_block_grid --ragged`: the ragged-segment API (CUB's offsets, int32) over the distributions
// of ragged_offsets.hpp, next to CUB's DeviceSegmentedReduce, CUB's scan-by-key (keys prepared
// outside the timing) and, built against CCCL 3.3 or newer, CUB's DeviceSegmentedScan (inclusive
// scans, or exclusive ones with op exclusive_scan); verified per segment against FP64; % of the read stream (reductions) or of the copy (scans), counting
// every byte moved (input, offsets, outputs).
#include <cstdint>
#include <string>
#include <vector>

#include "05_block_grid/bench/measure.hpp"

namespace tcu::bench::device {

struct RaggedOptions {
  std::int64_t n = std::int64_t(1) << 28;
  std::vector<std::string> distributions;  // empty: all of ragged_distributions()
  bool fp16_scan = true;                   // also the scan with fp16 outputs
  std::string baselines_only;              // "cub": only the cub_* rows (a build against another CCCL)
  std::string op = "all";                  // all (reduce and scan), reduce, scan or exclusive_scan
  bool only_api = false;                   // only the API's rows (algo auto), no baselines
  Dist dist = Dist::uniform;
  std::uint64_t seed = 20261125;
  TimingConfig timing{3, 20};
  bool verify = true;
  bool progress = true;
};

// CSV columns: op,distribution,mean_length,num_segments,n,algo,out_type,ms,gelem_per_s,pct_of_limit,
// max_rel_err,pass (op reduce, scan or exclusive_scan; algo auto = the API; n = the array's elements).
Report run_ragged_benchmarks(const RaggedOptions& options, double read_gb_per_s, double copy_gb_per_s);

// Whether CUB's DeviceSegmentedScan is in this build (CCCL 3.3 or newer).
bool cub_segmented_scan_available();

}  // namespace tcu::bench::device
