#pragma once
// Step 1 — CPU, all cores (OpenMP), B transposed first. The study's two CPU ideas: parallelise
// only the outer loop (rows of C are independent, no critical section), and copy B into
// column-major order once so that the inner loop reads both operands contiguously.
//
//   bt = Bᵀ (N×K, row-major)                      O(K·N) copy, amortised over M rows
//   parallel for i:  for j:  c[i][j] = Σ_p a[i][p] · bt[j][p]
//
// Built without OpenMP (find_package(OpenMP) failed) the pragma is ignored and it runs on
// one core; cpu_openmp_threads() says how many threads it uses.
#include <vector>

#include "02_gemm_variants/gemm_problem.hpp"
#if defined(_OPENMP)
#include <omp.h>
#endif

namespace tcu::gemm {

int cpu_openmp_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void gemm_cpu_openmp(const GemmArgs<float>& g) {
  const std::int64_t m = g.p.m, n = g.p.n, k = g.p.k;
  std::vector<float> bt(static_cast<std::size_t>(n * k));
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t p = 0; p < k; ++p) bt[j * k + p] = g.b[p * g.ldb + j];

#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < m; ++i) {
    const float* arow = g.a + i * g.lda;
    for (std::int64_t j = 0; j < n; ++j) {
      const float* bcol = bt.data() + j * k;
      float acc = 0.0f;
      for (std::int64_t p = 0; p < k; ++p) acc += arow[p] * bcol[p];
      g.c[i * g.ldc + j] = acc;
    }
  }
}

}  // namespace tcu::gemm
