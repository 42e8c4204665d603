#pragma once
// Step 2 — naive fp32: one thread per element of C, operands straight from global memory.
//
//   thread (row, col):  acc = Σ_p A[row][p] · B[p][col]      (fp32 FMA, K loads of each)
//
// threadIdx.x runs along a row of C, so the 32 threads of a warp read 32 consecutive
// elements of a row of B (one coalesced transaction) and all read the same A element (a
// broadcast). Every operand is fetched from global memory (through L1/L2) K times per output:
// arithmetic intensity ~0.25 FLOP/byte, hopelessly memory-bound.
#include "02_gemm_variants/gemm_problem.hpp"

namespace tcu::gemm {

inline constexpr int kNaiveBlockX = 16, kNaiveBlockY = 16;

__global__ void gemm_naive_fp32_kernel(GemmArgs<float> g) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= g.p.m || col >= g.p.n) return;
  const float* arow = g.a + row * g.lda;
  const float* bcol = g.b + col;
  float acc = 0.0f;
  for (int p = 0; p < g.p.k; ++p) acc = fmaf(arow[p], bcol[p * g.ldb], acc);
  g.c[row * g.ldc + col] = acc;
}

}  // namespace tcu::gemm
