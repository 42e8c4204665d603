#pragma once
// Step 0 — CPU, one core: the textbook triple loop. The inner loop walks down a column of B
// (stride ldb), so every iteration touches a new cache line: this is the step the study
// times at 11.7 s for 1024³ on the Jetson's ARM core.
//
//   for i in rows of A:  for j in columns of B:  c[i][j] = Σ_p a[i][p] · b[p][j]   (fp32)
#include "02_gemm_variants/gemm_problem.hpp"

namespace tcu::gemm {

void gemm_cpu_serial(const GemmArgs<float>& g) {
  for (std::int64_t i = 0; i < g.p.m; ++i)
    for (std::int64_t j = 0; j < g.p.n; ++j) {
      float acc = 0.0f;
      for (std::int64_t p = 0; p < g.p.k; ++p) acc += g.a[i * g.lda + p] * g.b[p * g.ldb + j];
      g.c[i * g.ldc + j] = acc;
    }
}

}  // namespace tcu::gemm
