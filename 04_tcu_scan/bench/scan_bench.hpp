#pragma once
// The chapter's measuring and checking driver (main.cu and the GPU tests call it): run one
// variant (a tensor-core algorithm or a baseline) on device data, check it against the FP64
// reference under a derived tolerance, time it, and sweep segment sizes into a table.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "04_tcu_scan/bench/baselines.cuh"
#include "04_tcu_scan/tcu_scan.cuh"
#include "common/data.cuh"
#include "common/report.hpp"
#include "common/timer.cuh"
#include "common/verify.hpp"

namespace tcu::bench::scan {

enum class OutType { fp16, fp32 };
const char* out_type_name(OutType t);

// Variant names: the tensor-core algorithms (the API's name table, lesson order), "auto", then
// the baselines, the whole-array ones last.
const std::vector<std::string>& variant_names();
// The segmented baselines of this build (thrust_scan_by_key, cub_scan_by_key, cub_warp_scan,
// cub_block_scan, and cub_segmented_scan with CCCL 3.3 or newer): any segment count.
const std::vector<std::string>& baseline_names();
// Baselines for one segment only (the whole array): cub_device_scan.
const std::vector<std::string>& whole_array_baseline_names();
bool is_tcu_variant(const std::string& name);
bool is_whole_array_only(const std::string& name);
// Whether the variant accepts this segment size (tcu::scan_algorithm_supports; baselines: any).
bool variant_supports(const std::string& name, std::int64_t segment_size);

// Enqueue one variant on device buffers; throws on an invalid argument / CUDA error.
template <class OutT>
void run_variant(const std::string& name, bool inclusive, const __half* d_in, OutT* d_out, std::int64_t num_segments,
                 std::int64_t segment_size, Scratch& scratch, cudaStream_t stream = 0);

// The tolerance of a variant's result (derived: fp32 accumulation depth, the hi/lo split, the
// sequential carries, and 2^-11 of the result for fp16 outputs). Integer inputs: bit-exact for
// fp32 outputs, and for fp16 outputs while every prefix stays within ±2048.
Tolerance scan_tolerance(const std::string& name, std::int64_t segment_size, OutType out, bool integer_inputs);

// Compare segments [seg_begin, seg_end) of a host copy of the output (starting at seg_begin)
// with the FP64 reference computed from the same (dist, seed) data.
template <class OutT>
VerifyResult verify_segments(const OutT* h_out, std::int64_t seg_begin, std::int64_t seg_end, std::int64_t segment_size,
                             bool inclusive, Dist dist, std::uint64_t seed, const Tolerance& tol);

// Non-finite elements of a device array (poisoned = never written), counted on the device.
template <class OutT>
std::int64_t count_non_finite(const OutT* d_out, std::int64_t n, cudaStream_t stream = 0);

// Segments longer than this give fp16 prefix sums beyond fp16's range (65504) on [0, 1) data:
// a run with both output types leaves their fp16 rows out (a note says so); --out fp16 alone
// times them without a check ("not verified" in the CSV).
inline constexpr std::int64_t kFp16CheckedSegment = std::int64_t(1) << 16;
// Rows below kSlowPct % of the copy bandwidth (one probe run) are timed 3 times, or only once
// (the probe) when that run took more than kOnceMs: a warp or block scanning a huge segment.
inline constexpr double kSlowPct = 2.0;
inline constexpr double kOnceMs = 100.0;

struct SweepConfig {
  std::int64_t n = std::int64_t(1) << 28;
  std::vector<std::int64_t> segment_sizes;  // each rounds n down to whole segments
  std::vector<OutType> out_types{OutType::fp16, OutType::fp32};
  std::string algo = "all";                 // one variant, or all (every variant and auto)
  std::string baselines_only;               // "cub": only the baselines named cub_*; "all": every
                                            // baseline; "": no such restriction
  bool shorten_slow = true;
  bool inclusive = true;
  Dist dist = Dist::uniform;
  std::uint64_t seed = 1;
  TimingConfig timing{3, 20};
  bool verify = true;
  bool progress = true;
};

struct SweepRow {
  std::string algo;
  OutType out_type = OutType::fp16;
  std::int64_t segment_size = 0, n = 0;
  double ms = 0, gelem_per_s = 0, pct_of_copy_bw = 0, pct_of_effective_bw = 0, speedup_vs_thrust = 0,
         max_rel_err = 0;
  bool verified = false, pass = true;
};

// copy_gb_per_s: the copy probe of the same run (bytes read + written per second).
std::vector<SweepRow> run_sweep(const SweepConfig& cfg, double copy_gb_per_s);

// The CSV table (columns algo,out_type,segment_size,n,ms,gelem_per_s,pct_of_copy_bw,
// pct_of_effective_bw,max_rel_err,pass) and the printed table (with the speed-up over
// thrust_scan_by_key). Both bandwidth columns count the bytes read (2 per element) and written
// (2 or 4) against the copy probe of the same run (which counts read + write too): they are
// the same number, pct_of_effective_bw being the name the reduction's table shares.
Table csv_table(const std::vector<SweepRow>& rows);
Table text_table(const std::vector<SweepRow>& rows);
// Dakkak Fig. 11: warp- vs block-level per segment size (G elements/s).
Table warp_vs_block_table(const std::vector<SweepRow>& rows);
// Per segment size and output type: the best tensor-core variant, its % of copy and speed-up.
Table best_tcu_table(const std::vector<SweepRow>& rows);

}  // namespace tcu::bench::scan
