#pragma once
// Chapter 02's public API: every step of the GEMM ladder as a host launch function, and the
// cuBLAS baselines. C = A·B with the layouts of gemm_problem.hpp (row-major A M×K, B K×N,
// fp32 C M×N, leading dimensions >= the row lengths). Device pointers, stream-ordered; each
// returns cudaSuccess or the launch error (cudaErrorInvalidValue for bad arguments,
// cudaErrorNotSupported on GPUs without the instructions a step needs).
//
//   #include "02_gemm_variants/gemm_variants.cuh"
//   auto args = tcu::gemm::packed_args(problem, d_a, d_b, d_c);      // __half operands
//   TCU_CUDA_CHECK(tcu::gemm::gemm_mma_sync_ldmatrix(args, stream));
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <string>

#include "02_gemm_variants/gemm_problem.hpp"

namespace tcu::gemm {

// Host (steps 0 and 1): host pointers, fp32 operands. Never fail.
void gemm_cpu_serial(const GemmArgs<float>& g);
void gemm_cpu_openmp(const GemmArgs<float>& g);
int cpu_openmp_threads();  // 1 when built without OpenMP

// CUDA cores, fp32 operands (steps 2, 3 and 3a–3d: register blocking in 1D and 2D, 16-byte
// accesses with A transposed in shared memory, warp tiles with double buffering).
cudaError_t gemm_naive_fp32(const GemmArgs<float>& g, cudaStream_t stream = 0);
cudaError_t gemm_tiled_fp32(const GemmArgs<float>& g, cudaStream_t stream = 0);
cudaError_t gemm_blocktile_1d_fp32(const GemmArgs<float>& g, cudaStream_t stream = 0);
cudaError_t gemm_blocktile_2d_fp32(const GemmArgs<float>& g, cudaStream_t stream = 0);
cudaError_t gemm_vectorized_fp32(const GemmArgs<float>& g, cudaStream_t stream = 0);
cudaError_t gemm_warptile_fp32(const GemmArgs<float>& g, cudaStream_t stream = 0);
// CUDA cores, fp16 operands and fp16 arithmetic in chunks of 16 products (steps 4–7).
cudaError_t gemm_naive_fp16(const GemmArgs<__half>& g, cudaStream_t stream = 0);
cudaError_t gemm_tiled_fp16(const GemmArgs<__half>& g, cudaStream_t stream = 0);
cudaError_t gemm_warp_shmem_fp16(const GemmArgs<__half>& g, cudaStream_t stream = 0);
cudaError_t gemm_warp_shuffle_fp16(const GemmArgs<__half>& g, cudaStream_t stream = 0);
// Tensor cores, fp16 operands, fp32 accumulation (steps 8–11; 10 and 11 need sm_80+).
cudaError_t gemm_wmma_naive(const GemmArgs<__half>& g, cudaStream_t stream = 0);
cudaError_t gemm_wmma_shmem(const GemmArgs<__half>& g, cudaStream_t stream = 0);
cudaError_t gemm_wmma_pipelined(const GemmArgs<__half>& g, cudaStream_t stream = 0);
cudaError_t gemm_mma_sync_ldmatrix(const GemmArgs<__half>& g, cudaStream_t stream = 0);
// Steps 10 and 11 (cp.async, ldmatrix, mma.m16n8k16) run when the code this binary holds for
// the current GPU was compiled for sm_80 or newer, not merely when the GPU is an sm_8x: a
// build for sm_72 alone JIT-compiles on an Orin to kernels whose sm_80 bodies are compiled out.
// Their launchers then return cudaErrorNotSupported. Empty when they can run; else why not.
std::string sm80_steps_unavailable();

// Hopper (steps 12 and 13): wgmma from shared memory fed by TMA, built only as sm_90a code
// and run only on an sm_90 GPU; cudaErrorNotSupported elsewhere. Operands whose rows are not
// 16-byte aligned (a tensor map's requirement) are multiplied by step 11's kernel instead.
cudaError_t gemm_wgmma_tma(const GemmArgs<__half>& g, cudaStream_t stream = 0);
// Step 13: warp-specialised (a TMA producer warpgroup, two wgmma consumer warpgroups),
// 128×256 tiles, m64n256k16.
cudaError_t gemm_wgmma_ws(const GemmArgs<__half>& g, cudaStream_t stream = 0);
// Empty when steps 12 and 13 can run here; else why not (GPU, build, driver).
std::string hopper_steps_unavailable();

// cuBLAS, the reference and the baseline. cuBLAS is column-major: the row-major product
// C = A·B is the column-major product Cᵀ = Bᵀ·Aᵀ, so B is passed first, with N and M swapped.
// fp16 in, fp32 compute, fp32 out (CUBLAS_COMPUTE_32F).
cublasStatus_t cublas_gemmex(cublasHandle_t h, const GemmArgs<__half>& g);
// fp32 in, compute and out: the line the fp32 CUDA-core steps (2, 3, 3a–3d) are measured
// against. The handle's math mode is left at CUBLAS_DEFAULT_MATH, which keeps Sgemm off the
// TF32 tensor cores: the same FFMA arithmetic as the steps it is compared with.
cublasStatus_t cublas_sgemm(cublasHandle_t h, const GemmArgs<float>& g);
// fp16 in, fp16 compute, fp16 out: c16 is M×N row-major with leading dimension ldc16.
cublasStatus_t cublas_hgemm(cublasHandle_t h, const GemmProblem& p, const __half* a, std::int64_t lda,
                            const __half* b, std::int64_t ldb, __half* c16, std::int64_t ldc16);

// Small device helpers the benchmark and tests use (stream-ordered, checked by the caller).
cudaError_t convert_half_to_float(const __half* in, float* out, std::size_t n, cudaStream_t stream = 0);
cudaError_t absolute_values(const __half* in, __half* out, std::size_t n, cudaStream_t stream = 0);

}  // namespace tcu::gemm
