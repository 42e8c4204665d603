#pragma once
// The measurements of 05_multi_gpu: every operation on G GPUs and the same total on one GPU,
// timed (median of CUDA-event runs), checked against an FP64 CPU reference that streams (one
// compensated sum per block of elements, not one double per element), with the bandwidth of
// every GPU (and of the host links, for the from-host forms) measured in the same run.
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_fp16.h>

#include "common/data.cuh"
#include "common/reference.hpp"
#include "common/report.hpp"
#include "common/timer.cuh"
#include "common/verify.hpp"

namespace tcu::multi_gpu::bench {

enum class Op { reduce, inclusive_scan, exclusive_scan, reduce_from_host, inclusive_scan_from_host };
const char* op_name(Op op);
// --op: "reduce", "scan" (both forms), "from_host" (the sum and the inclusive scan from pinned
// host memory) or "all"; empty for any other name.
std::vector<Op> ops_for(const std::string& choice);

struct Options {
  std::int64_t n_per_gpu = std::int64_t(1) << 24;
  std::vector<int> devices;  // one rank per GPU, in rank order
  std::vector<Op> ops{Op::reduce, Op::inclusive_scan, Op::exclusive_scan, Op::reduce_from_host,
                      Op::inclusive_scan_from_host};
  Dist dist = Dist::uniform;
  std::uint64_t seed = 20261122;
  TimingConfig timing{3, 20};
  bool verify = true;
  bool progress = true;
};

struct Report {
  Table table;
  bool all_passed = true;
  std::vector<std::string> notes;
  double read_gb_per_s = 0, copy_gb_per_s = 0;  // summed over the GPUs (each probed alone)
  double gpu0_read_gb_per_s = 0, gpu0_copy_gb_per_s = 0;
  double h2d_gb_per_s = 0, gpu0_h2d_gb_per_s = 0;  // pinned uploads: all GPUs at once; GPU 0 alone
};

// CSV columns: op, gpus, n, ms, gelem_per_s, speedup, pass, then api, bytes_per_elem,
// pct_of_aggregate_bw, speedup_bound, max_rel_err, check (exact or bound). n is the total over
// the GPUs; speedup is over the one-GPU row of the same op and n.
Report run_benchmarks(const Options& options);

// Tolerances (derived: measure.cu). `largest_shard`: the longest shard of the call.
Tolerance sum_tolerance(std::int64_t largest_shard);
Tolerance scan_tolerance(std::int64_t largest_shard);
// Integer data whose Σ|x| is at most 2^24: every partial sum any order forms is an integer fp32
// holds, so every result is exact.
bool exact_for(Dist dist, double abs_sum);

// Elements [offset, offset + n) of the data set (dist, seed), on `threads` threads.
void fill_host_parallel(__half* out, std::int64_t n, Dist dist, std::uint64_t seed, std::uint64_t offset,
                        int threads);
int host_threads();

// The FP64 reference of the prefix sums of x[0 … n), compact: a compensated sum before every
// block of kBlock elements; any prefix is its block's start plus at most kBlock elements.
class PrefixReference {
 public:
  static constexpr std::int64_t kBlock = std::int64_t(1) << 16;
  PrefixReference(const __half* x, std::int64_t n, int threads);
  SumRef total() const { return total_; }
  // got[0 … count) against the inclusive (or exclusive) scan of x at [first, first + count).
  VerifyResult check_scan(const float* got, std::int64_t first, std::int64_t count, bool inclusive,
                          const Tolerance& tol) const;

 private:
  const __half* x_;
  std::int64_t n_;
  int threads_;
  std::vector<Fp64Sum> start_, start_abs_;
  SumRef total_;
};

// `part` (covering values from index `base` on) folded into `into`.
void merge(VerifyResult& into, const VerifyResult& part, std::int64_t base);

}  // namespace tcu::multi_gpu::bench
