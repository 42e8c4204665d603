#pragma once
// The hi/lo split (split.hpp) of fp32 values in shared memory, a warp at a time, all or
// nothing: when one value of the group does not split (|v| > 2^15, NaN, Inf) no lane writes
// anything and every lane gets false, so the warp takes its fp32 path together.
#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/split.hpp"

namespace tcu::tc {

// The first kRows rows (kRows · 16 fp32 values, row-major, 16-byte aligned) of `src` as fp16
// tiles `hi` and `lo` (rows kRows … 15 of hi and lo are left untouched). Lane L handles the
// kRows/2 consecutive values starting at L · kRows/2. Ends with __syncwarp() when it wrote.
template <int kRows = kTile>
__device__ __forceinline__ bool warp_split_rows(const float* src, __half* hi, __half* lo, int lane) {
  static_assert(kRows == 8 || kRows == 16, "a lane handles one or two float4 (8 or 16 rows)");
  constexpr int kVec = kRows / 8;  // float4 per lane
  float4 f[kVec];
  bool ok = true;
#pragma unroll
  for (int i = 0; i < kVec; ++i) {
    f[i] = reinterpret_cast<const float4*>(src)[lane * kVec + i];
    ok &= splits(f[i].x) && splits(f[i].y) && splits(f[i].z) && splits(f[i].w);
  }
  if (!__all_sync(kFullMask, ok)) return false;
#pragma unroll
  for (int i = 0; i < kVec; ++i) {
    const __half2 h01 = __floats2half2_rn(f[i].x, f[i].y), h23 = __floats2half2_rn(f[i].z, f[i].w);
    const float2 b01 = __half22float2(h01), b23 = __half22float2(h23);
    const int at = 2 * (lane * kVec + i);  // in __half2 units
    reinterpret_cast<__half2*>(hi)[at] = h01;
    reinterpret_cast<__half2*>(hi)[at + 1] = h23;
    reinterpret_cast<__half2*>(lo)[at] = __floats2half2_rn(f[i].x - b01.x, f[i].y - b01.y);
    reinterpret_cast<__half2*>(lo)[at + 1] = __floats2half2_rn(f[i].z - b23.x, f[i].w - b23.y);
  }
  __syncwarp();
  return true;
}

// acc += X·C where X is the fp32 tile `x` (row-major, in shared memory) and C an fp16 operand,
// as hi·C + lo·C. `hi`/`lo` are this warp's 256-half scratch tiles. False (acc unchanged)
// when X does not split: the caller adds X·C in fp32 instead.
template <class FragB>
__device__ __forceinline__ bool mma_split_operand(FragAcc& acc, const float* x, const FragB& c, __half* hi, __half* lo,
                                                  int lane) {
  if (!warp_split_rows<kTile>(x, hi, lo, lane)) return false;
  FragA a;
  wmma::load_matrix_sync(a, hi, kTile);
  wmma::mma_sync(acc, a, c, acc);
  wmma::load_matrix_sync(a, lo, kTile);
  wmma::mma_sync(acc, a, c, acc);
  __syncwarp();  // hi/lo are free again
  return true;
}

}  // namespace tcu::tc
