#pragma once
// Step 4 — naive fp16: step 2 with fp16 operands (half the bytes) and fp16 arithmetic.
//
//   thread (row, col):  for each chunk of kFp16Chunk = 16 products:
//                           part = Σ_chunk a·b        in fp16 (__hfma: one rounding per step)
//                           acc += part               in fp32
//
// Why chunks: a sum of thousands of products kept in fp16 (11-bit significand) stagnates —
// once acc reaches 2048 its spacing is 2 and adding 0.25 does nothing. Summing 16 products in
// fp16 and carrying the running total in fp32 keeps the fp16 arithmetic of the study while
// bounding the error (|error| <= (16·2u16 + ⌈K/16⌉·2u32)·Σ|a·b|); with the study's
// integer inputs every chunk sum (<= 16·16 = 256) is exact. cuBLAS Hgemm, which accumulates
// everything in fp16, shows what happens without it (see the README).
#include <cuda_fp16.h>

#include "02_gemm_variants/gemm_problem.hpp"

namespace tcu::gemm {

inline constexpr int kFp16Chunk = 16;

__global__ void gemm_naive_fp16_kernel(GemmArgs<__half> g) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= g.p.m || col >= g.p.n) return;
  const __half* arow = g.a + row * g.lda;
  const __half* bcol = g.b + col;
  float acc = 0.0f;
  for (int k0 = 0; k0 < g.p.k; k0 += kFp16Chunk) {
    const int end = min(k0 + kFp16Chunk, static_cast<int>(g.p.k));
    __half part = __float2half(0.0f);
    for (int p = k0; p < end; ++p) part = __hfma(arow[p], bcol[p * g.ldb], part);
    acc += __half2float(part);
  }
  g.c[row * g.ldc + col] = acc;
}

}  // namespace tcu::gemm
