#pragma once
// The sweep driver of the chapter (main.cu's default run, --sweep and --warp-block; the GPU
// tests reuse its variants): one shape or the sweep (n fixed, segment sizes 2^lo … 2^hi, the
// odd sizes between, and n itself: the whole array), every TCU algorithm, auto and every
// baseline, timed and verified → a Table with
// algo,segment_size,n,ms,gelem_per_s,pct_of_read_bw,pct_of_effective_bw,max_rel_err,pass:
//   pct_of_read_bw       elements/s against the read-stream probe of the same run in fp16
//                        elements/s (the bytes read only)
//   pct_of_effective_bw  (bytes read + bytes written: 2·n + 4·num_segments) per second against
//                        the same read-stream probe
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "03_tcu_reduction/tcu_reduction.cuh"
#include "common/data.cuh"
#include "common/report.hpp"
#include "common/timer.cuh"
#include "common/verify.hpp"

namespace tcu::bench::reduce {

// A segmented-sum implementation under test: a TCU algorithm of the API or a baseline.
struct SegmentedVariant {
  std::string name;
  std::optional<ReduceAlgorithm> algorithm;  // the API's algorithm (automatic for "auto"); none: a baseline
  bool tcu = true;                // a tensor-core algorithm (else a baseline)
  bool deterministic = true;      // same bits every run
  std::int64_t max_segment = 0;   // sweep cap (0: none): larger sizes are skipped, see README
  bool whole_array_only = false;  // runs on one segment only (cub_device_reduce): the sweep's n point
  std::function<bool(std::int64_t)> supports = [](std::int64_t) { return true; };  // sizes it can do
  std::function<cudaError_t(const __half*, float*, std::int64_t, std::int64_t, cudaStream_t)> run;
};

class CubTemp;
// Every TCU algorithm (fp32 accumulation; the fp16 replica is for the accuracy study only),
// then auto (the API's choice), then the baselines this build has (available_baselines());
// the whole-array-only ones (cub_device_reduce) only with `with_whole_array`. `temp` must
// outlive the variants.
std::vector<SegmentedVariant> segmented_variants(CubTemp& temp, bool with_whole_array = false);
// Their names, whole-array ones included (for --algo), without needing a CubTemp.
std::vector<std::string> segmented_variant_names();
// The baselines' names of this build, whole-array ones included.
std::vector<std::string> baseline_names();

// The tolerance a variant's results are checked with (random data) on num_segments segments of
// segment_size: the API's own bound for the TCU algorithms and auto (tcu::reduce_error_bound,
// from the library's real split of long segments), the chain of roundings for the baselines.
Tolerance variant_tolerance(const SegmentedVariant& v, std::int64_t num_segments, std::int64_t segment_size);
// reduce_error_bound as a verification tolerance (+ fp32 underflow).
Tolerance bound_tolerance(const ReduceErrorBound& b);
// The depth of the longest chain of roundings of a baseline on a segment of this size (for
// tcu::tolerance_for_accumulation): a thread adds its 8-element pieces one after the other,
// then shuffles or a block tree.
int baseline_error_depth(std::int64_t segment_size);

struct SegmentedOptions {
  std::int64_t n = std::int64_t(1) << 24;         // elements (the sweep: fixed total)
  std::vector<std::int64_t> segment_sizes{256};   // one, or the sweep list
  std::vector<std::string> only;                  // variant names (empty: all)
  std::string baselines_only;                     // "cub": only the baselines named cub_*; "all":
                                                  // every baseline; "": no such restriction
  bool shorten_slow = true;                       // a variant below kSlowPct % of the read stream
                                                  // is timed 3 times (or once: kOnceMs)
  Dist dist = Dist::uniform;
  std::uint64_t seed = 1;
  TimingConfig timing{};
  bool verify = true;
  bool progress = true;
  bool cap_slow = true;                           // apply SegmentedVariant::max_segment
  std::int64_t input_offset = 0;                  // elements: read from d_in + offset (alignment)
};

struct SegmentedReport {
  Table csv{{{"algo"}, {"segment_size"}, {"n"}, {"ms"}, {"gelem_per_s"}, {"pct_of_read_bw"}, {"pct_of_effective_bw"},
             {"max_rel_err"}, {"pass"}}};
  Table text{{{"algo"}, {"segment"}, {"n"}, {"ms", "%.4f"}, {"G elem/s", "%.1f"}, {"% read bw", "%.1f"},
              {"% eff bw", "%.1f"}, {"vs CUB seg", "%.1fx"}, {"max rel err", "%.2e"}, {"check"}}};
  double read_gb_per_s = 0;  // the probe, measured in the same run
  bool all_passed = true;
  std::vector<std::string> notes;  // skipped sizes and why
};

// Rows below kSlowPct % of the read stream (a first probe run) are timed 3 times, or only
// once (the probe) when that run took more than kOnceMs (shorten_slow).
inline constexpr double kSlowPct = 2.0;
inline constexpr double kOnceMs = 100.0;

SegmentedReport run_segmented(const SegmentedOptions& opts, double read_gb_per_s);

}  // namespace tcu::bench::reduce
