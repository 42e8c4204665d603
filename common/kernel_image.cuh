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

#include <mutex>
#include <vector>

namespace tcu {

// cudaSuccess when `kernel`, on the current device, runs code compiled for compute_<min_arch>
// or newer (e.g. 80); cudaErrorNotSupported when the image it would run is older (the GPU is
// older, or this binary holds no code that new); the runtime's error when it has no image at all.
// The image's versions are asked once per kernel and device (the query costs a small call
// microseconds of host time, and the answer cannot change while the process runs).
inline cudaError_t require_kernel_image(const void* kernel, int min_arch) {
  struct Known {
    const void* kernel;
    int device, ptx, binary;
  };
  static std::mutex mutex;
  static std::vector<Known> known;
  int device = -1;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  auto pass = [&](int ptx, int binary) {
    return ptx >= min_arch && binary >= min_arch ? cudaSuccess : cudaErrorNotSupported;
  };
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const Known& k : known)
      if (k.kernel == kernel && k.device == device) return pass(k.ptx, k.binary);
  }
  cudaFuncAttributes attr{};
  const cudaError_t err = cudaFuncGetAttributes(&attr, kernel);
  if (err != cudaSuccess) return err;
  std::lock_guard<std::mutex> lock(mutex);
  known.push_back(Known{kernel, device, attr.ptxVersion, attr.binaryVersion});
  return pass(attr.ptxVersion, attr.binaryVersion);
}

}  // namespace tcu
