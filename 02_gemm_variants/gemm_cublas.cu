// The cuBLAS baselines. cuBLAS is column-major; a row-major M×N matrix with leading dimension
// ld is, to cuBLAS, its N×M transpose with the same ld. So the row-major C = A·B is computed
// as the column-major Cᵀ = Bᵀ·Aᵀ: B first, then A, with (m, n) = (N, M) and no transposes.
#include "02_gemm_variants/gemm_variants.cuh"

namespace tcu::gemm {

cublasStatus_t cublas_gemmex(cublasHandle_t h, const GemmArgs<__half>& g) {
  if (args_problem(g) != nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  const float alpha = 1.0f, beta = 0.0f;
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(g.p.n), static_cast<int>(g.p.m),
                      static_cast<int>(g.p.k), &alpha, g.b, CUDA_R_16F, static_cast<int>(g.ldb), g.a, CUDA_R_16F,
                      static_cast<int>(g.lda), &beta, g.c, CUDA_R_32F, static_cast<int>(g.ldc), CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t cublas_sgemm(cublasHandle_t h, const GemmArgs<float>& g) {
  if (args_problem(g) != nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  const float alpha = 1.0f, beta = 0.0f;
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(g.p.n), static_cast<int>(g.p.m),
                     static_cast<int>(g.p.k), &alpha, g.b, static_cast<int>(g.ldb), g.a, static_cast<int>(g.lda), &beta,
                     g.c, static_cast<int>(g.ldc));
}

cublasStatus_t cublas_hgemm(cublasHandle_t h, const GemmProblem& p, const __half* a, std::int64_t lda,
                            const __half* b, std::int64_t ldb, __half* c16, std::int64_t ldc16) {
  if (p.m < 1 || p.n < 1 || p.k < 1 || lda < p.k || ldb < p.n || ldc16 < p.n) return CUBLAS_STATUS_INVALID_VALUE;
  const __half alpha = __float2half(1.0f), beta = __float2half(0.0f);
  return cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(p.n), static_cast<int>(p.m), static_cast<int>(p.k),
                     &alpha, b, static_cast<int>(ldb), a, static_cast<int>(lda), &beta, c16, static_cast<int>(ldc16));
}

}  // namespace tcu::gemm
