#pragma once
// fp32 → fp16 hi + lo: how an fp32 accumulator becomes an fp16 MMA operand without losing
// the 13 bits fp16 lacks (docs/algorithms.md, "The hi/lo split"). One policy for the whole
// tutorial, on the host (models, tests) and the device (fragments.cuh):
//
//   v = hi + lo + e   with hi = fp16_rn(v), lo = fp16_rn(v − hi), |e| <= 2^-22·|v| + 2^-25
//                     (lo may be an fp16 subnormal when |v| < 2^-3: hence the absolute term)
//   X·C = hi·C + lo·C  two MMAs into an fp32 accumulator instead of one.
//
// Overflow policy: a value splits only when |v| <= kSplitLimit = 2^15. Above it (and for
// NaN/Inf) the split refuses, writes nothing, and the caller does that step in fp32 on the
// CUDA cores instead. The limit is a power of two well inside fp16's range (largest finite
// 65504), so hi can never round to infinity and the test is one exact comparison; the fp32
// path it guards is rare (partial sums above 32768) and equally exact.
#include <cuda_fp16.h>

#include "common/int_math.hpp"

namespace tcu::tc {

inline constexpr float kSplitLimit = 32768.0f;  // 2^15

// Does v split into hi + lo (|v| <= 2^15; false for NaN and ±Inf)?
TCU_HOST_DEVICE inline bool splits(float v) { return v <= kSplitLimit && v >= -kSplitLimit; }

struct HiLo {
  __half hi, lo;
};
// hi = fp16(v), lo = fp16(v − hi). Only meaningful where splits(v).
TCU_HOST_DEVICE inline HiLo split_hi_lo(float v) {
  const __half hi = __float2half_rn(v);
  return HiLo{hi, __float2half_rn(v - __half2float(hi))};
}

// The bound on |v − (hi + lo)| the tests and tolerance models use.
TCU_HOST_DEVICE constexpr double split_error_bound(double abs_v) {
  return abs_v * 0x1p-22 + 0x1p-25;
}

}  // namespace tcu::tc
