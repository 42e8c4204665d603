#pragma once
// Step 3 — tiled fp32: a block computes a kTile×kTile tile of C; the kTile-wide slabs of A
// and B it needs are staged in shared memory, one kTile×kTile square at a time.
//
//   for each k-tile t:   As = A[rows, t*kTile ...]   Bs = B[t*kTile ..., cols]   (zero-filled at edges)
//                        __syncthreads()
//                        acc += As[ty][:] · Bs[:][tx]                        (kTile FMAs)
//                        __syncthreads()
//
// Each global element is now read M/kTile (or N/kTile) times instead of M (or N): kTile = 16
// cuts global traffic 16×. The measured gain is far smaller (the README's ladder): the L1 cache
// already caught much of the naive kernel's reuse.
#include "02_gemm_variants/gemm_problem.hpp"

namespace tcu::gemm {

template <int kTile>
__global__ void gemm_tiled_fp32_kernel(GemmArgs<float> g) {
  static_assert(kTile >= 4 && kTile * kTile <= 1024, "one thread per tile element, at most 1024 threads");
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile + 1];  // +1: a column read by ty would hit one bank otherwise
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  // BEGIN EXERCISE 02.1 Tiled fp32 GEMM: kTile×kTile squares of A and B staged in shared memory
  // HINT: Walk k in steps of kTile. Each thread loads one element of A's square (row, k0 + tx)
  // HINT: and one of B's (k0 + ty, col) into as/bs, zero outside the matrix; __syncthreads();
  // HINT: kTile fused multiply-adds from shared memory; __syncthreads() again before the next
  // HINT: square overwrites as/bs. Write C only where row < m and col < n.
  // SIZE: 10 to 14 lines
  float acc = 0.0f;
  for (int k0 = 0; k0 < g.p.k; k0 += kTile) {
    // Zero-fill outside the matrix: the padding adds 0·x to the sums, never garbage.
    as[ty][tx] = (row < g.p.m && k0 + tx < g.p.k) ? g.a[row * g.lda + k0 + tx] : 0.0f;
    bs[ty][tx] = (k0 + ty < g.p.k && col < g.p.n) ? g.b[(k0 + ty) * g.ldb + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kTile; ++p) acc = fmaf(as[ty][p], bs[p][tx], acc);
    __syncthreads();
  }
  if (row < g.p.m && col < g.p.n) g.c[row * g.ldc + col] = acc;
  // STUB: (void)as; (void)bs; (void)row; (void)col;
  // END EXERCISE
}

}  // namespace tcu::gemm
