// Launchers of the GPU steps (2–11, 3a–3d): argument checks, launch configuration, instruction-set
// checks and the choice of copy path. The kernels live in kernels/, one step per file.
#include "02_gemm_variants/gemm_variants.cuh"
#include "02_gemm_variants/gemm_configs.hpp"
#include "02_gemm_variants/kernels/02_naive_fp32.cuh"
#include "02_gemm_variants/kernels/03_tiled_fp32.cuh"
#include "02_gemm_variants/kernels/03a_blocktile_1d_fp32.cuh"
#include "02_gemm_variants/kernels/03b_blocktile_2d_fp32.cuh"
#include "02_gemm_variants/kernels/03c_vectorized_fp32.cuh"
#include "02_gemm_variants/kernels/03d_warptile_fp32.cuh"
#include "02_gemm_variants/kernels/04_naive_fp16.cuh"
#include "02_gemm_variants/kernels/05_tiled_fp16.cuh"
#include "02_gemm_variants/kernels/06_warp_shmem_fp16.cuh"
#include "02_gemm_variants/kernels/07_warp_shuffle_fp16.cuh"
#include "02_gemm_variants/kernels/08_wmma_naive.cuh"
#include "02_gemm_variants/kernels/09_wmma_shmem.cuh"
#include "02_gemm_variants/kernels/10_wmma_pipelined.cuh"
#include "02_gemm_variants/kernels/11_mma_sync_ldmatrix.cuh"
#include "common/kernel_image.cuh"
#include "common/wmma_rules.cuh"

namespace tcu::gemm {
namespace {

constexpr std::int64_t kMaxGridY = 65535;

template <class T>
cudaError_t check_args(const GemmArgs<T>& g, std::int64_t rows_per_block) {
  if (args_problem(g) != nullptr) return cudaErrorInvalidValue;
  if (ceil_div(g.p.m, rows_per_block) > kMaxGridY) return cudaErrorInvalidValue;
  return cudaSuccess;
}


dim3 grid_2d(const GemmProblem& p, int block_cols, int block_rows) {
  return dim3(static_cast<unsigned>(ceil_div(p.n, block_cols)), static_cast<unsigned>(ceil_div(p.m, block_rows)));
}

// Warp-per-16×16-tile kernels (steps 6, 7, 8): a 1-D grid over the tiles of C.
unsigned warp_tile_blocks(const GemmProblem& p, int warps_per_block) {
  const std::int64_t tiles = ceil_div(p.m, kWarpTile) * ceil_div(p.n, kWarpTile);
  return static_cast<unsigned>(ceil_div(tiles, warps_per_block));
}

bool fp16_rows_16B(const __half* base, std::int64_t ld) { return rows_allow_16B_copies(base, ld, 2); }

}  // namespace

cudaError_t gemm_naive_fp32(const GemmArgs<float>& g, cudaStream_t stream) {
  if (cudaError_t e = check_args(g, kNaiveBlockY); e != cudaSuccess) return e;
  gemm_naive_fp32_kernel<<<grid_2d(g.p, kNaiveBlockX, kNaiveBlockY), dim3(kNaiveBlockX, kNaiveBlockY), 0, stream>>>(g);
  return cudaGetLastError();
}

cudaError_t gemm_tiled_fp32(const GemmArgs<float>& g, cudaStream_t stream) {
  if (cudaError_t e = check_args(g, kTiledTile); e != cudaSuccess) return e;
  gemm_tiled_fp32_kernel<kTiledTile><<<grid_2d(g.p, kTiledTile, kTiledTile), dim3(kTiledTile, kTiledTile), 0, stream>>>(g);
  return cudaGetLastError();
}

cudaError_t gemm_blocktile_1d_fp32(const GemmArgs<float>& g, cudaStream_t stream) {
  using C = Blocktile1dConfig;
  if (cudaError_t e = check_args(g, C::kBM); e != cudaSuccess) return e;
  gemm_blocktile_1d_fp32_kernel<C::kBM, C::kBN, C::kBK, C::kTM>
      <<<grid_2d(g.p, C::kBN, C::kBM), C::kBM * C::kBN / C::kTM, 0, stream>>>(g);
  return cudaGetLastError();
}

cudaError_t gemm_blocktile_2d_fp32(const GemmArgs<float>& g, cudaStream_t stream) {
  using C = Blocktile2dConfig;
  if (cudaError_t e = check_args(g, C::kBM); e != cudaSuccess) return e;
  gemm_blocktile_2d_fp32_kernel<C::kBM, C::kBN, C::kBK, C::kTM, C::kTN>
      <<<grid_2d(g.p, C::kBN, C::kBM), (C::kBM / C::kTM) * (C::kBN / C::kTN), 0, stream>>>(g);
  return cudaGetLastError();
}

namespace {
bool fp32_rows_16B(const float* base, std::int64_t ld) { return rows_allow_16B_copies(base, ld, 4); }
}  // namespace

cudaError_t gemm_vectorized_fp32(const GemmArgs<float>& g, cudaStream_t stream) {
  using C = Blocktile2dConfig;
  if (cudaError_t e = check_args(g, C::kBM); e != cudaSuccess) return e;
  const dim3 grid = grid_2d(g.p, C::kBN, C::kBM);
  constexpr int kThreads = (C::kBM / C::kTM) * (C::kBN / C::kTN);
  const bool c16 = fp32_rows_16B(g.c, g.ldc);
  if (fp32_rows_16B(g.a, g.lda) && fp32_rows_16B(g.b, g.ldb))
    gemm_vectorized_fp32_kernel<C::kBM, C::kBN, C::kBK, C::kTM, C::kTN, CopyMode::vector16>
        <<<grid, kThreads, 0, stream>>>(g, c16);
  else
    gemm_vectorized_fp32_kernel<C::kBM, C::kBN, C::kBK, C::kTM, C::kTN, CopyMode::scalar>
        <<<grid, kThreads, 0, stream>>>(g, c16);
  return cudaGetLastError();
}

cudaError_t gemm_warptile_fp32(const GemmArgs<float>& g, cudaStream_t stream) {
  using C = WarptileConfig;
  if (cudaError_t e = check_args(g, C::kBM); e != cudaSuccess) return e;
  const dim3 grid = grid_2d(g.p, C::kBN, C::kBM);
  constexpr int kThreads = (C::kBM / C::kWM) * (C::kBN / C::kWN) * 32;
  const bool c16 = fp32_rows_16B(g.c, g.ldc);
  if (fp32_rows_16B(g.a, g.lda) && fp32_rows_16B(g.b, g.ldb))
    gemm_warptile_fp32_kernel<C::kBM, C::kBN, C::kBK, C::kWM, C::kWN, C::kWMIter, C::kWNIter, C::kTM, C::kTN,
                              CopyMode::vector16><<<grid, kThreads, 0, stream>>>(g, c16);
  else
    gemm_warptile_fp32_kernel<C::kBM, C::kBN, C::kBK, C::kWM, C::kWN, C::kWMIter, C::kWNIter, C::kTM, C::kTN,
                              CopyMode::scalar><<<grid, kThreads, 0, stream>>>(g, c16);
  return cudaGetLastError();
}

cudaError_t gemm_naive_fp16(const GemmArgs<__half>& g, cudaStream_t stream) {
  if (cudaError_t e = check_args(g, kNaiveBlockY); e != cudaSuccess) return e;
  gemm_naive_fp16_kernel<<<grid_2d(g.p, kNaiveBlockX, kNaiveBlockY), dim3(kNaiveBlockX, kNaiveBlockY), 0, stream>>>(g);
  return cudaGetLastError();
}

cudaError_t gemm_tiled_fp16(const GemmArgs<__half>& g, cudaStream_t stream) {
  if (cudaError_t e = check_args(g, kTiledTile); e != cudaSuccess) return e;
  gemm_tiled_fp16_kernel<kTiledTile><<<grid_2d(g.p, kTiledTile, kTiledTile), dim3(kTiledTile, kTiledTile), 0, stream>>>(g);
  return cudaGetLastError();
}

cudaError_t gemm_warp_shmem_fp16(const GemmArgs<__half>& g, cudaStream_t stream) {
  if (cudaError_t e = check_args(g, 1); e != cudaSuccess) return e;
  gemm_warp_shmem_fp16_kernel<kWarpTileWarps><<<warp_tile_blocks(g.p, kWarpTileWarps), kWarpTileWarps * 32, 0, stream>>>(g);
  return cudaGetLastError();
}

cudaError_t gemm_warp_shuffle_fp16(const GemmArgs<__half>& g, cudaStream_t stream) {
  if (cudaError_t e = check_args(g, 1); e != cudaSuccess) return e;
  gemm_warp_shuffle_fp16_kernel<kWarpTileWarps>
      <<<warp_tile_blocks(g.p, kWarpTileWarps), kWarpTileWarps * 32, 0, stream>>>(g);
  return cudaGetLastError();
}

cudaError_t gemm_wmma_naive(const GemmArgs<__half>& g, cudaStream_t stream) {
  if (cudaError_t e = check_args(g, 1); e != cudaSuccess) return e;
  WmmaDirect direct;
  direct.a = wmma_pointer_ok(g.a) && wmma_ldm_ok(static_cast<std::size_t>(g.lda), 2);
  direct.b = wmma_pointer_ok(g.b) && wmma_ldm_ok(static_cast<std::size_t>(g.ldb), 2);
  direct.c = wmma_pointer_ok(g.c) && wmma_ldm_ok(static_cast<std::size_t>(g.ldc), 4);
  gemm_wmma_naive_kernel<kWarpTileWarps>
      <<<warp_tile_blocks(g.p, kWarpTileWarps), kWarpTileWarps * 32, 0, stream>>>(g, direct);
  return cudaGetLastError();
}

cudaError_t gemm_wmma_shmem(const GemmArgs<__half>& g, cudaStream_t stream) {
  using C = WmmaShmemConfig;
  using S = WmmaTileShape<C::kBM, C::kBN, C::kBK, C::kWM, C::kWN>;
  if (cudaError_t e = check_args(g, C::kBM); e != cudaSuccess) return e;
  const dim3 grid = grid_2d(g.p, C::kBN, C::kBM);
  const bool c16 = rows_allow_16B_copies(g.c, g.ldc, 4);
  if (fp16_rows_16B(g.a, g.lda) && fp16_rows_16B(g.b, g.ldb))
    gemm_wmma_shmem_kernel<C::kBM, C::kBN, C::kBK, C::kWM, C::kWN, CopyMode::vector16>
        <<<grid, S::kThreads, 0, stream>>>(g, c16);
  else
    gemm_wmma_shmem_kernel<C::kBM, C::kBN, C::kBK, C::kWM, C::kWN, CopyMode::scalar>
        <<<grid, S::kThreads, 0, stream>>>(g, c16);
  return cudaGetLastError();
}

namespace {
// Launch a dynamic-shared-memory kernel of steps 10/11 after raising its limit above 48 KB.
template <class Kernel>
cudaError_t launch_big_smem(Kernel kernel, dim3 grid, int threads, int smem_bytes, cudaStream_t stream,
                            const GemmArgs<__half>& g, bool flag) {
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
      e != cudaSuccess)
    return e;
  kernel<<<grid, threads, smem_bytes, stream>>>(g, flag);
  return cudaGetLastError();
}
}  // namespace

namespace {
// Steps 10 and 11 share their launch: grid, copy path (cp.async where every row is 16-byte
// aligned, scalar otherwise), shared-memory limit. Kernel<C, mode> names the kernel instance.
template <class C, template <class, CopyMode> class Kernel>
cudaError_t launch_pipelined(const GemmArgs<__half>& g, cudaStream_t stream, bool c_flag) {
  using S = PipelinedShape<C::kBM, C::kBN, C::kBK, C::kWM, C::kWN, C::kStages>;
  if (cudaError_t e = check_args(g, C::kBM); e != cudaSuccess) return e;
  const dim3 grid = grid_2d(g.p, C::kBN, C::kBM);
  const auto kernel = fp16_rows_16B(g.a, g.lda) && fp16_rows_16B(g.b, g.ldb) ? Kernel<C, CopyMode::cp_async16>::get()
                                                                              : Kernel<C, CopyMode::scalar>::get();
  // Not the GPU's compute capability: the code this binary holds for it (common/kernel_image.cuh).
  if (cudaError_t e = require_kernel_image(reinterpret_cast<const void*>(kernel), 80); e != cudaSuccess) return e;
  return launch_big_smem(kernel, grid, S::kThreads, S::kSmemBytes, stream, g, c_flag);
}
template <class C, CopyMode kMode>
struct WmmaPipelinedKernel {
  static auto get() {
    return gemm_wmma_pipelined_kernel<C::kBM, C::kBN, C::kBK, C::kWM, C::kWN, C::kStages, C::kGroupRows, kMode>;
  }
};
template <class C, CopyMode kMode>
struct MmaSyncKernel {
  static auto get() {
    return gemm_mma_sync_ldmatrix_kernel<C::kBM, C::kBN, C::kBK, C::kWM, C::kWN, C::kStages, C::kGroupRows, kMode>;
  }
};

// The large tile where it still gives every SM at least one block, the small one otherwise.
bool use_large_tiles(const GemmProblem& p) {
  using L = PipelinedLargeConfig;
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return false;  // the launch that follows reports the error
  return ceil_div(p.m, L::kBM) * ceil_div(p.n, L::kBN) >= sms;
}
}  // namespace

std::string sm80_steps_unavailable() {
  using C = PipelinedSmallConfig;  // any kernel of this file: they all hold code for the same architectures
  const void* probe = reinterpret_cast<const void*>(MmaSyncKernel<C, CopyMode::scalar>::get());
  const cudaError_t e = require_kernel_image(probe, 80);
  if (e == cudaSuccess) return "";
  int device = 0, major = 0, minor = 0;
  cudaFuncAttributes attr{};
  if (e != cudaErrorNotSupported || cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess ||
      cudaFuncGetAttributes(&attr, probe) != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error
    return std::string("no kernel image for this GPU (") + cudaGetErrorString(e) + ")";
  }
  if (major < 8)
    return "needs compute capability 8.0 or newer (this GPU: " + std::to_string(major) + "." + std::to_string(minor) + ")";
  return "needs code compiled for sm_80 or newer, and this build runs compute_" + std::to_string(attr.ptxVersion) +
         " code on this sm_" + std::to_string(major * 10 + minor) + " GPU: add " + std::to_string(major * 10 + minor) +
         " to CMAKE_CUDA_ARCHITECTURES";
}

cudaError_t gemm_wmma_pipelined(const GemmArgs<__half>& g, cudaStream_t stream) {
  const bool c16 = rows_allow_16B_copies(g.c, g.ldc, 4);
  if (use_large_tiles(g.p)) return launch_pipelined<PipelinedLargeConfig, WmmaPipelinedKernel>(g, stream, c16);
  return launch_pipelined<PipelinedSmallConfig, WmmaPipelinedKernel>(g, stream, c16);
}

cudaError_t gemm_mma_sync_ldmatrix(const GemmArgs<__half>& g, cudaStream_t stream) {
  const bool c8 = g.ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(g.c) % 8 == 0;  // float2 stores
  if (use_large_tiles(g.p)) return launch_pipelined<PipelinedLargeConfig, MmaSyncKernel>(g, stream, c8);
  return launch_pipelined<PipelinedSmallConfig, MmaSyncKernel>(g, stream, c8);
}

namespace {
__global__ void convert_half_to_float_kernel(const __half* in, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = __half2float(in[i]);
}
__global__ void absolute_values_kernel(const __half* in, __half* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = __habs(in[i]);
}
unsigned elementwise_blocks(std::size_t n) {
  const std::size_t b = (n + 255) / 256;
  return static_cast<unsigned>(b < 4096 ? (b > 0 ? b : 1) : 4096);
}
}  // namespace

cudaError_t convert_half_to_float(const __half* in, float* out, std::size_t n, cudaStream_t stream) {
  convert_half_to_float_kernel<<<elementwise_blocks(n), 256, 0, stream>>>(in, out, n);
  return cudaGetLastError();
}

cudaError_t absolute_values(const __half* in, __half* out, std::size_t n, cudaStream_t stream) {
  absolute_values_kernel<<<elementwise_blocks(n), 256, 0, stream>>>(in, out, n);
  return cudaGetLastError();
}

}  // namespace tcu::gemm
