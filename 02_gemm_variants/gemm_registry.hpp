#pragma once
// The ladder as data: every variant's name (--algo), file, operand type, how it accumulates
// (which fixes its error bound), and the GPU it needs. The benchmark, main() and the tests
// iterate over this list; adding a step means adding a row here and a case in gemm_bench.cu.
#include <cstdint>
#include <string>
#include <vector>

#include "common/data.cuh"
#include "common/verify.hpp"

namespace tcu::gemm {

enum class VariantId {
  cpu_serial, cpu_openmp, naive_fp32, tiled_fp32, blocktile_1d_fp32, blocktile_2d_fp32, vectorized_fp32,
  warptile_fp32, naive_fp16, tiled_fp16, warp_shmem_fp16, warp_shuffle_fp16, wmma_naive, wmma_shmem,
  wmma_pipelined, mma_sync_ldmatrix, wgmma_tma, wgmma_ws, cublas_gemmex, cublas_hgemm, cublas_sgemm
};

// How the products are summed: what the error bound is derived from.
enum class Accumulation {
  fp32_sequential,  // one fp32 FMA after another (CPU, steps 2-3d): depth K in fp32
  fp16_chunks,      // 16 products summed in fp16, the chunk sums in fp32 (steps 4-7)
  tensor_fp32,      // tensor-core k16 steps into fp32 accumulators, in k order (steps 8-13)
  cublas_fp32,      // cublasGemmEx (CUBLAS_COMPUTE_32F), cublasSgemm: order unknown (split-K?) → depth K
  cublas_fp16,      // cublasHgemm: everything in fp16, fp16 output → depth K in fp16
};

enum class Unit { cpu, cuda_cores, tensor_cores, cublas };

struct VariantInfo {
  VariantId id;
  std::string name;     // --algo and the CSV's `variant` column
  std::string file;     // where the kernel is (kernels/NN_*.cuh), or the cuBLAS call
  Unit unit;
  bool fp16_operands;   // false: the same values converted to fp32
  Accumulation accumulation;
  int min_cc_major;     // 7 (WMMA), 8 (cp.async / ldmatrix / mma.m16n8k16), 9 (wgmma, TMA: sm_90 only)
  std::string summary;  // one line for --help and the README
};

// Ladder order (steps 0-3, 3a-3d, 4-13), then cublas_gemmex, cublas_hgemm, cublas_sgemm.
const std::vector<VariantInfo>& all_variants();
const VariantInfo* find_variant(const std::string& name);
std::vector<std::string> variant_names();

// CPU variants run only while max(M, N, K) <= this (the study's largest size).
inline constexpr std::int64_t kCpuMaxDim = 1024;

bool integer_valued(Dist d);

// The error bound of one accumulation scheme for depth K, relative to |A|·|B| (see
// common/verify.hpp for the model: 2u per level, output rounding, underflow).
Tolerance accumulation_tolerance(Accumulation acc, std::int64_t k);
// Integer-valued inputs are summed exactly while every partial sum stays below this
// (2^24 in fp32; 2^11 for Hgemm's fp16 sums). Fp16-chunk sums are at most 16·4·4 = 256.
double exact_limit(Accumulation acc);
// The tolerance to check a variant against an exact (FP64) reference: bit-exact when the
// inputs are integers and max |A|·|B| <= exact_limit, otherwise accumulation_tolerance.
Tolerance variant_tolerance(Accumulation acc, std::int64_t k, bool integer_inputs, double max_magnitude);
// Comparing two computed results (a variant against cuBLAS): their error bounds add.
Tolerance combine(const Tolerance& a, const Tolerance& b);

}  // namespace tcu::gemm
