#pragma once
// Step 3a — 1D register blocking, fp32: each thread computes kTM outputs of one column of C
// instead of one, so a value of B read from shared memory feeds kTM FMAs.
//
//   block: BM×BN tile of C, BM·BN/kTM threads;  thread: rows r·kTM … r·kTM+kTM-1 of column c
//   for each k-tile t:   As[BM][BK] ← A,  Bs[BK][BN] ← B          (one element per thread each)
//                        __syncthreads()
//                        for p in BK:  b = Bs[p][c]                (one shared load…)
//                                      acc[i] += As[r·kTM+i][p]·b  (…kTM FMAs; As is a broadcast)
//                        __syncthreads()
//
// Step 3 issued two shared-memory loads per FMA, and a shared load costs about as much issue
// bandwidth as an FMA: the kernel was bound by shared memory, not by arithmetic. Here a k-step
// costs 1 + kTM loads for kTM FMAs, and the As loads are warp-wide broadcasts (every thread of
// a warp has the same r when BN ≥ 32). The accumulators live in registers (kTM of them,
// indices known at compile time: the loops are unrolled).
#include "02_gemm_variants/gemm_problem.hpp"

namespace tcu::gemm {

template <int BM, int BN, int BK, int kTM>
__global__ void __launch_bounds__(BM * BN / kTM) gemm_blocktile_1d_fp32_kernel(GemmArgs<float> g) {
  constexpr int kThreads = BM * BN / kTM;
  static_assert(BM % kTM == 0 && kThreads <= 1024, "kTM divides BM; at most 1024 threads");
  static_assert(BM * BK == kThreads && BK * BN == kThreads, "each thread copies one element of As and of Bs");
  static_assert(BN % 32 == 0, "a warp shares its rows: As reads are broadcasts");
  __shared__ float as[BM][BK];
  __shared__ float bs[BK][BN];
  const int tid = static_cast<int>(threadIdx.x);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int c = tid % BN, r = tid / BN;  // this thread's column and row group in the block tile
  // The elements this thread copies: As[a_r][a_c] and Bs[b_r][b_c].
  const int a_r = tid / BK, a_c = tid % BK, b_r = tid / BN, b_c = tid % BN;
  const int m = static_cast<int>(g.p.m), n = static_cast<int>(g.p.n), k = static_cast<int>(g.p.k);

  float acc[kTM] = {};
  for (int k0 = 0; k0 < k; k0 += BK) {
    // Zero-filled outside the matrix, as in step 3: padding adds 0·x, never garbage.
    as[a_r][a_c] = (row0 + a_r < m && k0 + a_c < k) ? g.a[(row0 + a_r) * g.lda + k0 + a_c] : 0.0f;
    bs[b_r][b_c] = (k0 + b_r < k && col0 + b_c < n) ? g.b[(k0 + b_r) * g.ldb + col0 + b_c] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      const float b = bs[p][c];
#pragma unroll
      for (int i = 0; i < kTM; ++i) acc[i] = fmaf(as[r * kTM + i][p], b, acc[i]);
    }
    __syncthreads();
  }
  const int col = col0 + c;
  if (col >= n) return;
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int row = row0 + r * kTM + i;
    if (row < m) g.c[row * g.ldc + col] = acc[i];
  }
}

}  // namespace tcu::gemm
