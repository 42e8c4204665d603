// The launchers of steps 12 (wgmma + TMA) and 13 (warp-specialised wgmma): their own
// translation unit, because their kernels exist only as sm_90a code. CMake compiles this file
// for sm_90a alone (TCU_GEMM_SM90A, see CMakeLists.txt) and defines TCU_GEMM_HOPPER_KERNELS;
// without it the file still builds, for every architecture, and the steps report why they
// cannot run.
//
// The TMA copies need tensor maps (CUtensorMap), encoded on the host by the driver function
// cuTensorMapEncodeTiled. It is fetched through the runtime (cudaGetDriverEntryPoint…), so
// the chapter does not link the driver library and still starts on a machine without one.
#include <cuda.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <string>

#include "02_gemm_variants/gemm_configs.hpp"
#include "02_gemm_variants/gemm_variants.cuh"
#include "02_gemm_variants/kernels/12_wgmma_tma.cuh"
#include "02_gemm_variants/kernels/13_wgmma_ws.cuh"

namespace tcu::gemm {
namespace {

#if TCU_GEMM_HOPPER_KERNELS
using C = WgmmaTmaConfig;
using S = WgmmaTmaShape<C::kBM, C::kBN, C::kBK, C::kStages>;

const void* wgmma_kernel() {
  return reinterpret_cast<const void*>(gemm_wgmma_tma_kernel<C::kBM, C::kBN, C::kBK, C::kStages, C::kGroupRows>);
}

using CW = WgmmaWsConfig;
using SW = WgmmaWsShape<CW::kBM, CW::kBN, CW::kBK, CW::kStages, CW::kConsumers>;
constexpr auto ws_kernel = gemm_wgmma_ws_kernel<CW::kBM, CW::kBN, CW::kBK, CW::kStages, CW::kGroupRows,
                                                CW::kConsumers, CW::kProducerRegs, CW::kConsumerRegs>;
static_assert(SW::kSmemBytes + SW::kBarrierBytes <= 227 * 1024, "step 13's slots must fit an sm_90 block");

PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found);
#else
    const cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &found);
#endif
    if (e != cudaSuccess || found != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      p = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// A 2-D map of a row-major fp16 matrix (rows × cols, leading dimension ld elements) read in
// boxes of box_rows × box_cols, written to shared memory with the 128-byte swizzle that the
// wgmma descriptors of 12_wgmma_tma.cuh expect. Elements outside the matrix arrive as zeros.
cudaError_t encode_map(CUtensorMap* map, const __half* base, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                       int box_rows, int box_cols) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
  if (encode == nullptr) return cudaErrorNotSupported;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};  // contiguous first
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * 2};  // bytes from one row to the next
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<__half*>(base), dims, strides, box,
                            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}
#endif

}  // namespace

std::string hopper_steps_unavailable() {
#if TCU_GEMM_HOPPER_KERNELS
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    cudaGetLastError();
    return "no usable GPU";
  }
  if (major != 9 || minor != 0)
    return "needs an sm_90 GPU (Hopper: wgmma and TMA are sm_90a instructions); this GPU is sm_" +
           std::to_string(major * 10 + minor);
  for (const void* kernel : {wgmma_kernel(), reinterpret_cast<const void*>(ws_kernel)}) {
    cudaFuncAttributes attr{};
    if (const cudaError_t e = cudaFuncGetAttributes(&attr, kernel); e != cudaSuccess) {
      cudaGetLastError();
      return std::string("no sm_90a kernel image for this GPU (") + cudaGetErrorString(e) + ")";
    }
  }
  if (tensor_map_encoder() == nullptr) return "the driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer needed)";
  return "";
#else
  return "this build holds no sm_90a code: configure with -DTCU_GEMM_SM90A=ON (the default when "
         "CMAKE_CUDA_ARCHITECTURES includes 90)";
#endif
}

cudaError_t gemm_wgmma_tma(const GemmArgs<__half>& g, cudaStream_t stream) {
  if (args_problem(g) != nullptr) return cudaErrorInvalidValue;
#if TCU_GEMM_HOPPER_KERNELS
  if (ceil_div(g.p.m, C::kBM) > 65535) return cudaErrorInvalidValue;
  if (!hopper_steps_unavailable().empty()) return cudaErrorNotSupported;
  // A tensor map needs a 16-byte aligned base and row pitches that are multiples of 16 bytes.
  // Other operands (K or N not a multiple of 8, odd leading dimensions) take step 11's path,
  // whose copies work at any alignment.
  if (!rows_allow_16B_copies(g.a, g.lda, 2) || !rows_allow_16B_copies(g.b, g.ldb, 2))
    return gemm_mma_sync_ldmatrix(g, stream);
  CUtensorMap map_a{}, map_b{};
  if (cudaError_t e = encode_map(&map_a, g.a, g.p.m, g.p.k, g.lda, C::kBM, C::kBK); e != cudaSuccess) return e;
  if (cudaError_t e = encode_map(&map_b, g.b, g.p.k, g.p.n, g.ldb, C::kBK, S::kBBoxCols); e != cudaSuccess) return e;
  const auto kernel = gemm_wgmma_tma_kernel<C::kBM, C::kBN, C::kBK, C::kStages, C::kGroupRows>;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes);
      e != cudaSuccess)
    return e;
  const dim3 grid(static_cast<unsigned>(ceil_div(g.p.n, C::kBN)), static_cast<unsigned>(ceil_div(g.p.m, C::kBM)));
  const bool c8 = g.ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(g.c) % 8 == 0;  // float2 stores
  kernel<<<grid, S::kThreads, S::kSmemBytes, stream>>>(map_a, map_b, g, c8);
  return cudaGetLastError();
#else
  (void)stream;
  return cudaErrorNotSupported;
#endif
}

// Step 13: the same checks, maps and hand-over as step 12; 128×256 tiles, 384 threads.
cudaError_t gemm_wgmma_ws(const GemmArgs<__half>& g, cudaStream_t stream) {
  if (args_problem(g) != nullptr) return cudaErrorInvalidValue;
#if TCU_GEMM_HOPPER_KERNELS
  if (ceil_div(g.p.m, CW::kBM) > 65535) return cudaErrorInvalidValue;
  if (!hopper_steps_unavailable().empty()) return cudaErrorNotSupported;
  if (!rows_allow_16B_copies(g.a, g.lda, 2) || !rows_allow_16B_copies(g.b, g.ldb, 2))
    return gemm_mma_sync_ldmatrix(g, stream);
  CUtensorMap map_a{}, map_b{};
  if (cudaError_t e = encode_map(&map_a, g.a, g.p.m, g.p.k, g.lda, CW::kBM, CW::kBK); e != cudaSuccess) return e;
  if (cudaError_t e = encode_map(&map_b, g.b, g.p.k, g.p.n, g.ldb, CW::kBK, SW::kBBoxCols); e != cudaSuccess)
    return e;
  if (cudaError_t e = cudaFuncSetAttribute(ws_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SW::kSmemBytes);
      e != cudaSuccess)
    return e;
  const dim3 grid(static_cast<unsigned>(ceil_div(g.p.n, CW::kBN)), static_cast<unsigned>(ceil_div(g.p.m, CW::kBM)));
  const bool c8 = g.ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(g.c) % 8 == 0;  // float2 stores
  ws_kernel<<<grid, SW::kThreads, SW::kSmemBytes, stream>>>(map_a, map_b, g, c8);
  return cudaGetLastError();
#else
  (void)stream;
  return cudaErrorNotSupported;
#endif
}

}  // namespace tcu::gemm
