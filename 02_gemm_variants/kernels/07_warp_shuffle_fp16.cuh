#pragma once
// Step 7 — warp per 16×16 tile, fp16, register tiles exchanged with __shfl_sync (the study's
// register-tiling kernel, which they never finished verifying; this one is verified).
// No shared memory at all: each lane keeps 8 elements of the A tile and 8 of the B tile in
// registers, and gets the ones it needs from the lane that holds them.
//
//   lane l holds   A[l/2][(l%2)*8 + i]     and   B[l/2][(l%2)*8 + i],   i = 0..7   (of the k-tile)
//   lane l computes C[l/2][(l%2)*8 + j],  j = 0..7
//   for p in 0..15:  a   = shfl(areg[p%8], from lane (l & ~1) | p/8)          A[l/2][p]
//                    b_j = shfl(breg[j],   from lane 2p + l%2)                B[p][(l%2)*8 + j]
//                    part[j] += a · b_j                                       (fp16, then fp32 per tile)
//
// Register indices are compile-time constants (the p loop is unrolled), so areg/breg stay in
// registers; a run-time index would push them to local memory. 9 shuffles per 8 FMAs: the
// exchange costs more than the arithmetic, which is why shared memory (step 6) wins.
#include <cuda_fp16.h>

#include "02_gemm_variants/gemm_problem.hpp"
#include "02_gemm_variants/kernels/06_warp_shmem_fp16.cuh"  // kWarpTile

namespace tcu::gemm {

template <int kWarps>
__global__ void gemm_warp_shuffle_fp16_kernel(GemmArgs<__half> g) {
  static_assert(kWarps >= 1 && kWarps * 32 <= 1024, "whole warps, at most 1024 threads");
  static_assert(kWarpTile == 16, "the lane <-> element map below is written for 16x16 tiles");
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const long long tile = static_cast<long long>(blockIdx.x) * kWarps + warp;
  const int tiles_n = static_cast<int>(ceil_div(g.p.n, kWarpTile));
  const int row0 = static_cast<int>(tile / tiles_n) * kWarpTile, col0 = static_cast<int>(tile % tiles_n) * kWarpTile;
  if (row0 >= g.p.m) return;  // whole warp: the shuffles below never miss a lane

  const int r = lane / 2, half_sel = lane % 2, c0 = half_sel * 8;
  const __half zero = __float2half(0.0f);
  float acc[8] = {};
  for (int k0 = 0; k0 < g.p.k; k0 += kWarpTile) {
    __half areg[8], breg[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int ra = row0 + r, ka = k0 + c0 + i;
      areg[i] = (ra < g.p.m && ka < g.p.k) ? g.a[ra * g.lda + ka] : zero;
      const int kb = k0 + r, cb = col0 + c0 + i;
      breg[i] = (kb < g.p.k && cb < g.p.n) ? g.b[kb * g.ldb + cb] : zero;
    }
    __half part[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) part[j] = zero;
#pragma unroll
    for (int p = 0; p < kWarpTile; ++p) {
      const __half a = __shfl_sync(0xffffffffu, areg[p % 8], (lane & ~1) | (p / 8));
#pragma unroll
      for (int j = 0; j < 8; ++j) part[j] = __hfma(a, __shfl_sync(0xffffffffu, breg[j], 2 * p + half_sel), part[j]);
    }
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[j] += __half2float(part[j]);
  }
  const int row = row0 + r;
  if (row < g.p.m)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (col0 + c0 + j < g.p.n) g.c[row * g.ldc + col0 + c0 + j] = acc[j];
}

}  // namespace tcu::gemm
