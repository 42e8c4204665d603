#pragma once
// One size of the ladder: every chosen variant run on the same seeded data, verified (FP64
// CPU reference — every element up to 1024³, sampled elements above — and cuBLAS GemmEx on
// every element) and timed (CUDA events, warm-up, median; repeats bounded by a time budget
// so that the naive kernels at 8192³ do not take minutes).
#include <cstdint>
#include <string>
#include <vector>

#include "02_gemm_variants/gemm_problem.hpp"
#include "02_gemm_variants/gemm_registry.hpp"
#include "common/data.cuh"

namespace tcu::gemm {

struct BenchOptions {
  Dist dist = Dist::uniform;
  std::uint64_t seed = 20261122;
  int repeat = 20;              // at most this many timed runs…
  int warmup = 3;
  double budget_ms = 300.0;     // …and no more than this much device time per measurement
  bool verify = true;
  bool time = true;             // false: run and verify only (tests)
  double full_reference_max_flops = 2.2e9;  // FP64 reference of every element up to 1024³
  int sampled_elements = 512;   // above it: this many FP64-checked elements
  bool progress = true;         // per-variant progress on stderr
  // false: no cuBLAS row and no check against it, only the FP64 reference of every element (so
  // at most full_reference_max_flops). For compute-sanitizer runs that check one kernel: with a
  // kernel filter, racecheck cannot run cuBLAS's unchecked sm_90 kernels beside it.
  bool cublas = true;
};

struct BenchRow {
  std::string variant;
  GemmProblem p;
  double ms = 0;            // median
  double tflops = 0;
  double pct_of_cublas = 0; // 100 · t(cublas_gemmex) / t(variant), same size, same run
  double max_rel_err = 0;   // against the FP64 reference (every or sampled element)
  bool pass = false;        // FP64 check and cuBLAS check both within tolerance
  bool verified = false;    // false with --no-verify
  std::string reference;    // "fp64 all + cublas" / "fp64 512 sampled + cublas"
  std::string detail;       // the failing check's summary, when it fails
};

struct SizeResult {
  std::vector<BenchRow> rows;
  std::vector<std::string> notes;  // skipped variants and why
};

// Runs `names` (cublas_gemmex too, unless o.cublas is false: the reference and the 100 % line) on the
// current device. Throws tcu::CudaError / CublasError on CUDA or cuBLAS failures.
SizeResult run_size(const GemmProblem& p, const std::vector<std::string>& names, const BenchOptions& opts);

// The study's sizes plus the large ones.
std::vector<std::int64_t> sweep_sizes();

}  // namespace tcu::gemm
