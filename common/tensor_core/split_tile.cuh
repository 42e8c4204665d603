#pragma once
// The hi/lo split (split.hpp) of fp32 values in shared memory, a warp at a time, all or
// nothing: when one value of the group does not split (|v| > 2^15, NaN, Inf) no lane writes
// anything and every lane gets false, so the warp takes its fp32 path together.
#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/split.hpp"

namespace tcu::tc {

// The first kRows rows (kRows · 16 fp32 values, row-major, 8-byte aligned) of `src` as fp16
// tiles `hi` and `lo` (rows kRows … 15 of hi and lo are left untouched). Lane L handles the
// value pairs L, L + 32, L + 64, …: consecutive lanes touch consecutive 8-byte (float2) and
// 4-byte (__half2) words, so neither the loads nor the stores conflict in shared memory.
// Ends with __syncwarp() when it wrote.
template <int kRows = kTile>
__device__ __forceinline__ bool warp_split_rows(const float* src, __half* hi, __half* lo, int lane) {
  static_assert(kRows == 8 || kRows == 16, "8 or 16 rows: 2 or 4 value pairs per lane");
  constexpr int kPairs = kRows * kTile / 2 / kWarpSize;  // float2 per lane
  float2 f[kPairs];
  bool ok = true;
#pragma unroll
  for (int i = 0; i < kPairs; ++i) {
    f[i] = reinterpret_cast<const float2*>(src)[i * kWarpSize + lane];
    ok &= splits(f[i].x) && splits(f[i].y);
  }
  if (!__all_sync(kFullMask, ok)) return false;
#pragma unroll
  for (int i = 0; i < kPairs; ++i) {
    const __half2 h = __floats2half2_rn(f[i].x, f[i].y);
    const float2 b = __half22float2(h);
    reinterpret_cast<__half2*>(hi)[i * kWarpSize + lane] = h;
    reinterpret_cast<__half2*>(lo)[i * kWarpSize + lane] = __floats2half2_rn(f[i].x - b.x, f[i].y - b.y);
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
