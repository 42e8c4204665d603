#pragma once
// The chapter's measurements: every algorithm of the API and every baseline, timed (median of
// CUDA-event runs), checked against the FP64 CPU reference, with the read-stream (reductions)
// or copy (scans) bandwidth measured in the same run as the limit.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "common/data.cuh"
#include "common/report.hpp"
#include "common/timer.cuh"
#include "common/verify.hpp"

namespace tcu::bench::device {

enum class Op { reduce, scan, segmented_reduce, segmented_scan };
const char* op_name(Op op);

// One thing to run: out is float* or __half* as out_fp16 says; returns the launch error.
struct Variant {
  std::string algo;  // the table name ("auto", "grid_lookback", "cub_device_scan", ...)
  Op op;
  bool out_fp16 = false;
  bool inclusive = true;
  bool baseline = false;
  std::function<cudaError_t(const __half* in, void* out, std::int64_t num_segments, std::int64_t segment_size,
                            cudaStream_t stream)>
      run;
};

// Every variant of an operation (the chapter's algorithms that take the shape, "auto", baselines).
std::vector<Variant> variants_for(Op op, bool out_fp16, std::int64_t num_segments, std::int64_t segment_size);
// Every name --algo accepts (chapter algorithms, "auto", baselines).
std::vector<std::string> algorithm_names();

// Tolerances of the chapter's sums and scans (derived: see measure.cu).
Tolerance reduce_tolerance(std::int64_t segment_size);
Tolerance scan_tolerance(std::int64_t segment_size, bool out_fp16);

struct Options {
  std::int64_t n = std::int64_t(1) << 24;
  std::int64_t segment_size = std::int64_t(1) << 16;  // for the segmented ops
  std::vector<Op> ops{Op::reduce, Op::scan, Op::segmented_reduce, Op::segmented_scan};
  std::vector<std::int64_t> full_sizes;       // --sweep: full-array sizes (empty: {n})
  std::vector<std::int64_t> segment_sizes;    // --sweep: segment sizes at n (empty: {segment_size})
  std::string only = "all";
  Dist dist = Dist::uniform;
  std::uint64_t seed = 20261122;
  TimingConfig timing{3, 20};
  bool verify = true;
  bool progress = true;
  bool cub_only = false;  // only the cub_* rows (a build against another CCCL)
};

struct Report {
  Table table;
  bool all_passed = true;
  std::vector<std::string> notes;
};

// Segments (or arrays) up to this length keep the sums of non-negative data in [0, 1] inside
// fp16's range; longer fp16-output scans run on N(0, 1) data (see run_benchmarks).
inline constexpr std::int64_t kFp16SumsFitUpTo = std::int64_t(1) << 15;

// CSV columns: op,algo,out_type,n,segment_size,ms,gelem_per_s,pct_of_limit,max_rel_err,pass,vs_cub
// (out_type fp32 or fp16; pass: PASS, FAIL, "FAIL (baseline)" for a baseline outside the bound
// (reported, not a failure of the run), skipped (fp16 sums past 65504) or n/a (--no-verify))
Report run_benchmarks(const Options& options, double read_gb_per_s, double copy_gb_per_s);

}  // namespace tcu::bench::device
