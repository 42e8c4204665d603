// How far the device-wide sum of n fp16 values may be from the exact sum: chapter 05's own bound
// for tcu::DeviceReduce::Sum (device_reduce_error_bound), so this tolerance cannot drift from
// the kernels that compute the sum.
#include <string>

#include "05_block_grid/tcu_device.cuh"
#include "06_jetson_unified_memory/unified_memory.hpp"

namespace tcu::unified_memory {

Tolerance gpu_reduction_tolerance(std::int64_t n) {
  const DeviceReduceErrorBound b = device_reduce_error_bound(n);
  Tolerance t = tolerance_for_accumulation(1, NumType::fp32, NumType::fp32);  // fp32 output: its underflow slack
  t.rel_to_magnitude = b.rel_to_abs_sum;
  t.rationale = "depth " + std::to_string(b.depth) + " (tcu::DeviceReduce::Sum: " + b.rationale + ")";
  return t;
}

}  // namespace tcu::unified_memory
