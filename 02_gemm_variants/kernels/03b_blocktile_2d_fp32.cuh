#pragma once
// Step 3b — 2D register blocking, fp32: each thread computes a kTM×kTN square of C, the outer
// product of kTM values of A and kTN values of B held in registers.
//
//   block: BM×BN tile of C, (BM/kTM)·(BN/kTN) threads;  thread (ty, tx): rows ty·kTM …,
//   columns tx·kTN …
//   for each k-tile t:   As[BM][BK] ← A,  Bs[BK][BN] ← B        (BM·BK/threads elements each)
//                        __syncthreads()
//                        for p in BK:  ra[i] = As[ty·kTM+i][p]   (kTM shared loads)
//                                      rb[j] = Bs[p][tx·kTN+j]   (kTN shared loads)
//                                      acc[i][j] += ra[i]·rb[j]  (kTM·kTN FMAs)
//                        __syncthreads()
//
// Step 3a paid 1 + kTM shared loads for kTM FMAs; the outer product pays kTM + kTN for
// kTM·kTN: 16 loads for 64 FMAs at 8×8. Per block, a 128×128 tile reads (128 + 128)·BK
// values from global memory for 128·128·BK FMAs — 8× the reuse of step 3's 16×16 tile.
// What it leaves: the copies are scalar and A's are poorly coalesced (a warp reads 4 rows of
// 8 values), and the Bs reads of neighbouring threads are 8 floats apart (bank conflicts).
// Step 3c fixes both.
#include "02_gemm_variants/gemm_problem.hpp"

namespace tcu::gemm {

template <int BM, int BN, int BK, int kTM, int kTN>
__global__ void __launch_bounds__((BM / kTM) * (BN / kTN)) gemm_blocktile_2d_fp32_kernel(GemmArgs<float> g) {
  constexpr int kThreads = (BM / kTM) * (BN / kTN);
  static_assert(BM % kTM == 0 && BN % kTN == 0 && kThreads <= 1024, "thread tiles divide the block tile");
  static_assert((BM * BK) % kThreads == 0 && (BK * BN) % kThreads == 0, "every thread copies the same number");
  __shared__ float as[BM][BK];
  __shared__ float bs[BK][BN];
  const int tid = static_cast<int>(threadIdx.x);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int ty = tid / (BN / kTN), tx = tid % (BN / kTN);
  const int m = static_cast<int>(g.p.m), n = static_cast<int>(g.p.n), k = static_cast<int>(g.p.k);

  float acc[kTM][kTN] = {};
  float ra[kTM], rb[kTN];
  for (int k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
    for (int it = 0; it < BM * BK / kThreads; ++it) {
      const int e = it * kThreads + tid, r = e / BK, c = e % BK;
      as[r][c] = (row0 + r < m && k0 + c < k) ? g.a[(row0 + r) * g.lda + k0 + c] : 0.0f;
    }
#pragma unroll
    for (int it = 0; it < BK * BN / kThreads; ++it) {
      const int e = it * kThreads + tid, r = e / BN, c = e % BN;
      bs[r][c] = (k0 + r < k && col0 + c < n) ? g.b[(k0 + r) * g.ldb + col0 + c] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < BK; ++p) {
#pragma unroll
      for (int i = 0; i < kTM; ++i) ra[i] = as[ty * kTM + i][p];
#pragma unroll
      for (int j = 0; j < kTN; ++j) rb[j] = bs[p][tx * kTN + j];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int row = row0 + ty * kTM + i;
    if (row >= m) continue;
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const int col = col0 + tx * kTN + j;
      if (col < n) g.c[row * g.ldc + col] = acc[i][j];
    }
  }
}

}  // namespace tcu::gemm
