#pragma once
// Which code a kernel runs on this GPU: the question behind every "needs sm_80" check.
//
// A kernel whose body sits under `#if __CUDA_ARCH__ >= 800` compiles to an empty body in the
// passes for older architectures. The compute capability of the GPU is not enough to know
// which body runs: a build for sm_72 alone (CMake's "72" = sm_72 code + compute_72 PTX) runs
// on an sm_87 Orin, because the driver JIT-compiles the compute_72 PTX there, with
// __CUDA_ARCH__ = 720: the empty body. So ask the runtime what it picked for this kernel: the
// virtual architecture its code was compiled from (ptxVersion, the __CUDA_ARCH__ the body saw)
// and the machine code it runs (binaryVersion).
#include <cuda_runtime.h>

#include "common/runtime_memo.hpp"

namespace tcu {

// cudaSuccess when `kernel`, on the current device, runs code compiled for compute_<min_arch>
// or newer (e.g. 80); cudaErrorNotSupported when the image it would run is older (the GPU is
// older, or this binary holds no code that new); the runtime's error when it has no image at all.
// The image's versions are asked once per kernel and device (runtime_memo.hpp).
inline cudaError_t require_kernel_image(const void* kernel, int min_arch) {
  constexpr int kPack = 1 << 12;  // versions are below 4096: ptx · kPack + binary
  const int v = remember_per_device(kernel, 0, 0, [](const void* k, int, std::size_t) {
    cudaFuncAttributes attr{};
    const cudaError_t err = cudaFuncGetAttributes(&attr, k);
    return err != cudaSuccess ? -static_cast<int>(err) : attr.ptxVersion * kPack + attr.binaryVersion;
  });
  if (v < 0) return static_cast<cudaError_t>(-v);
  return (v / kPack >= min_arch && v % kPack >= min_arch) ? cudaSuccess : cudaErrorNotSupported;
}

}  // namespace tcu
