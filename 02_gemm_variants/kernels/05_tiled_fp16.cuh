#pragma once
// Step 5 — tiled fp16: step 3 with fp16 tiles. One k-tile is one fp16 chunk (see step 4): the
// kTile products of a tile are summed in fp16, the tile sums in fp32.
//
//   for each k-tile t:  As, Bs (fp16, zero-filled) → __syncthreads → part = As[ty][:]·Bs[:][tx] (fp16)
//                       acc += part (fp32) → __syncthreads
#include <cuda_fp16.h>

#include "02_gemm_variants/gemm_problem.hpp"

namespace tcu::gemm {

template <int kTile>
__global__ void gemm_tiled_fp16_kernel(GemmArgs<__half> g) {
  static_assert(kTile >= 4 && kTile * kTile <= 1024, "one thread per tile element, at most 1024 threads");
  static_assert(kTile <= 16, "a tile is one fp16 chunk: at most 16 products summed in fp16");
  __shared__ __half as[kTile][kTile];
  __shared__ __half bs[kTile][kTile + 2];  // +2 halves: one 4-byte bank of padding per row
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  const __half zero = __float2half(0.0f);
  float acc = 0.0f;
  for (int k0 = 0; k0 < g.p.k; k0 += kTile) {
    as[ty][tx] = (row < g.p.m && k0 + tx < g.p.k) ? g.a[row * g.lda + k0 + tx] : zero;
    bs[ty][tx] = (k0 + ty < g.p.k && col < g.p.n) ? g.b[(k0 + ty) * g.ldb + col] : zero;
    __syncthreads();
    __half part = zero;
#pragma unroll
    for (int p = 0; p < kTile; ++p) part = __hfma(as[ty][p], bs[p][tx], part);
    acc += __half2float(part);
    __syncthreads();
  }
  if (row < g.p.m && col < g.p.n) g.c[row * g.ldc + col] = acc;
}

}  // namespace tcu::gemm
