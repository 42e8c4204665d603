// How far chapter 03's sum of n fp16 values (one segment) may be from the exact sum: chapter
// 03's own bound, tcu::reduce_error_bound, for what its automatic choice does with one segment
// of n on a GPU of sm_count SMs — the same split into per-warp chunks (and second pass) that
// its launchers use, so this tolerance cannot drift from the kernels. Each level is charged 2u
// of fp32 times Σ|x| (as tcu::tolerance_for_accumulation does), plus 2^-22·Σ|x| per hi/lo split.
#include <string>

#include "03_tcu_reduction/tcu_reduction.cuh"
#include "06_jetson_unified_memory/unified_memory.hpp"

namespace tcu::unified_memory {

Tolerance gpu_reduction_tolerance(std::int64_t n, int sm_count) {
  const ReduceErrorBound b = reduce_error_bound(ReduceAlgorithm::automatic, 1, n, sm_count);
  Tolerance t = tolerance_for_accumulation(1, NumType::fp32, NumType::fp32);  // fp32 output: its underflow slack
  t.rel_to_magnitude = b.rel_to_abs_sum;
  t.abs += b.abs;
  t.rationale = "depth " + std::to_string(b.depth) + " (chapter 03: " + b.rationale + ")";
  return t;
}

}  // namespace tcu::unified_memory
