#include "02_gemm_variants/gemm_registry.hpp"

#include <cmath>

namespace tcu::gemm {

const std::vector<VariantInfo>& all_variants() {
  using A = Accumulation;
  static const std::vector<VariantInfo> v = {
      {VariantId::cpu_serial, "cpu_serial", "kernels/00_cpu_serial.hpp", Unit::cpu, false, A::fp32_sequential, 0,
       "CPU, one core, i-j-k loops"},
      {VariantId::cpu_openmp, "cpu_openmp", "kernels/01_cpu_openmp.hpp", Unit::cpu, false, A::fp32_sequential, 0,
       "CPU, OpenMP over rows, B transposed first"},
      {VariantId::naive_fp32, "naive_fp32", "kernels/02_naive_fp32.cuh", Unit::cuda_cores, false, A::fp32_sequential,
       7, "one thread per output, fp32"},
      {VariantId::tiled_fp32, "tiled_fp32", "kernels/03_tiled_fp32.cuh", Unit::cuda_cores, false, A::fp32_sequential,
       7, "16x16 shared-memory tiles, fp32"},
      {VariantId::blocktile_1d_fp32, "blocktile_1d_fp32", "kernels/03a_blocktile_1d_fp32.cuh", Unit::cuda_cores,
       false, A::fp32_sequential, 7, "64x64 tiles, 8 outputs (a column) per thread, fp32"},
      {VariantId::blocktile_2d_fp32, "blocktile_2d_fp32", "kernels/03b_blocktile_2d_fp32.cuh", Unit::cuda_cores,
       false, A::fp32_sequential, 7, "128x128 tiles, 8x8 outputs per thread (outer products), fp32"},
      {VariantId::vectorized_fp32, "vectorized_fp32", "kernels/03c_vectorized_fp32.cuh", Unit::cuda_cores, false,
       A::fp32_sequential, 7, "as 3b with float4 loads/stores, A transposed in shared memory"},
      {VariantId::warptile_fp32, "warptile_fp32", "kernels/03d_warptile_fp32.cuh", Unit::cuda_cores, false,
       A::fp32_sequential, 7, "64x32 warp tiles of 4x4 lane squares, double-buffered k-tiles"},
      {VariantId::naive_fp16, "naive_fp16", "kernels/04_naive_fp16.cuh", Unit::cuda_cores, true, A::fp16_chunks, 7,
       "one thread per output, fp16 math"},
      {VariantId::tiled_fp16, "tiled_fp16", "kernels/05_tiled_fp16.cuh", Unit::cuda_cores, true, A::fp16_chunks, 7,
       "16x16 shared-memory tiles, fp16 math"},
      {VariantId::warp_shmem_fp16, "warp_shmem_fp16", "kernels/06_warp_shmem_fp16.cuh", Unit::cuda_cores, true,
       A::fp16_chunks, 7, "warp per 16x16 tile, per-warp shared memory"},
      {VariantId::warp_shuffle_fp16, "warp_shuffle_fp16", "kernels/07_warp_shuffle_fp16.cuh", Unit::cuda_cores, true,
       A::fp16_chunks, 7, "warp per 16x16 tile, registers + __shfl_sync"},
      {VariantId::wmma_naive, "wmma_naive", "kernels/08_wmma_naive.cuh", Unit::tensor_cores, true, A::tensor_fp32, 7,
       "WMMA, warp per 16x16 tile, fragments from global"},
      {VariantId::wmma_shmem, "wmma_shmem", "kernels/09_wmma_shmem.cuh", Unit::tensor_cores, true, A::tensor_fp32, 7,
       "WMMA, 64x64 block tiles in padded shared memory"},
      {VariantId::wmma_pipelined, "wmma_pipelined", "kernels/10_wmma_pipelined.cuh", Unit::tensor_cores, true,
       A::tensor_fp32, 8, "WMMA, 128x256 tiles (128x128 small), 4-stage cp.async, 64x64 per warp"},
      {VariantId::mma_sync_ldmatrix, "mma_sync_ldmatrix", "kernels/11_mma_sync_ldmatrix.cuh", Unit::tensor_cores, true,
       A::tensor_fp32, 8, "PTX mma.sync.m16n8k16 + ldmatrix, as step 10"},
      {VariantId::wgmma_tma, "wgmma_tma", "kernels/12_wgmma_tma.cuh", Unit::tensor_cores, true, A::tensor_fp32, 9,
       "Hopper: wgmma m64n128k16 from TMA-filled shared memory, mbarriers"},
      {VariantId::wgmma_ws, "wgmma_ws", "kernels/13_wgmma_ws.cuh", Unit::tensor_cores, true, A::tensor_fp32, 9,
       "Hopper, warp-specialised: TMA producer + 2 consumer warpgroups, 128x256 tiles, m64n256k16"},
      {VariantId::cublas_gemmex, "cublas_gemmex", "gemm_cublas.cu", Unit::cublas, true, A::cublas_fp32, 7,
       "cublasGemmEx fp16 in, fp32 compute and out"},
      {VariantId::cublas_hgemm, "cublas_hgemm", "gemm_cublas.cu", Unit::cublas, true, A::cublas_fp16, 7,
       "cublasHgemm fp16 in, compute and out"},
      {VariantId::cublas_sgemm, "cublas_sgemm", "gemm_cublas.cu", Unit::cublas, false, A::cublas_fp32, 7,
       "cublasSgemm fp32 in, compute and out (the CUDA-core steps' line)"},
  };
  return v;
}

const VariantInfo* find_variant(const std::string& name) {
  for (const VariantInfo& v : all_variants())
    if (v.name == name) return &v;
  return nullptr;
}

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const VariantInfo& v : all_variants()) names.push_back(v.name);
  return names;
}

bool integer_valued(Dist d) { return d == Dist::integers || d == Dist::ones; }

Tolerance accumulation_tolerance(Accumulation acc, std::int64_t k) {
  const int kd = static_cast<int>(k);
  switch (acc) {
    case Accumulation::fp32_sequential:
      return tolerance_for_accumulation(kd, NumType::fp32, NumType::fp32);
    case Accumulation::fp16_chunks: {
      // ≤ 16 fp16 roundings inside a chunk, then ⌈K/16⌉ fp32 additions of the chunk sums;
      // every __hfma can also round a subnormal (2^-25 absolute).
      const Tolerance in_chunk = tolerance_for_accumulation(16, NumType::fp16, NumType::fp32);
      Tolerance t = tolerance_for_accumulation(static_cast<int>((k + 15) / 16), NumType::fp32, NumType::fp32);
      t.rel_to_magnitude += in_chunk.rel_to_magnitude;
      t.abs += static_cast<double>(k) * underflow_abs(NumType::fp16);
      t.rationale = "16 products in fp16, " + t.rationale;
      return t;
    }
    case Accumulation::tensor_fp32: {
      // ⌈K/16⌉ accumulator updates in k order; within one k16 step the tensor core aligns and
      // sums 16 products and the accumulator (17 terms, truncation not documented as rounding).
      Tolerance t = tolerance_for_accumulation(static_cast<int>((k + 15) / 16) + 17, NumType::fp32, NumType::fp32);
      t.rationale = "tensor-core k16 steps: " + t.rationale;
      return t;
    }
    case Accumulation::cublas_fp32:
      return tolerance_for_accumulation(kd, NumType::fp32, NumType::fp32);
    case Accumulation::cublas_fp16: {
      Tolerance t = tolerance_for_accumulation(kd, NumType::fp16, NumType::fp16);
      t.abs = static_cast<double>(k) * underflow_abs(NumType::fp16);
      return t;
    }
  }
  return Tolerance{};
}

// Fp16-chunk sums of integer inputs stay exact in fp16 (|chunk sum| <= 16·bound² <= 2^11).
static_assert(16 * kIntDistBound * kIntDistBound <= 2048, "integer chunk sums must be exact in fp16");

double exact_limit(Accumulation acc) { return acc == Accumulation::cublas_fp16 ? 2048.0 : 16777216.0; }

Tolerance variant_tolerance(Accumulation acc, std::int64_t k, bool integer_inputs, double max_magnitude) {
  if (integer_inputs && max_magnitude <= exact_limit(acc)) return exact_tolerance();
  return accumulation_tolerance(acc, k);
}

Tolerance combine(const Tolerance& a, const Tolerance& b) {
  Tolerance t;
  t.rel_to_magnitude = a.rel_to_magnitude + b.rel_to_magnitude;
  t.rel_to_result = a.rel_to_result + b.rel_to_result;
  t.abs = a.abs + b.abs;
  t.rationale = t.exact() ? "bit-exact" : "(" + a.rationale + ") + (" + b.rationale + ")";
  return t;
}

}  // namespace tcu::gemm
