#pragma once
// Programmatic dependent launch (sm_90 and newer): a kernel's blocks placed while the kernel
// before it in the stream ends, waiting on the device for its results instead of on the launch.
#include <cuda_runtime.h>

namespace tcu::tc {

// Whether `kernel` runs code compiled for compute_90 or newer on the current device (launch.cpp:
// the image the runtime picked, common/kernel_image.cuh, not the GPU's compute capability).
bool runs_sm90_code(const void* kernel);

// kernel<<<grid, block, 0, stream>>>(args…) as a dependent of the kernel before it in `stream`:
// where `kernel` runs code built for compute_90 or newer, its blocks are placed as soon as every
// block of that kernel has called launch_dependents() or exited, and wait in wait_prior_grid()
// until its writes are visible; the gap between the two launches is gone. Elsewhere a plain
// launch. Every block of `kernel` calls wait_prior_grid() before it touches anything the kernels
// before it read or write.
template <class... P, class... A>
cudaError_t launch_dependent(void (*kernel)(P...), unsigned grid, unsigned block, cudaStream_t stream, A... args) {
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.stream = stream;
  config.attrs = &early;
  config.numAttrs = runs_sm90_code(reinterpret_cast<const void*>(kernel)) ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, static_cast<P>(args)...);
}

// The device halves (no-ops before sm_90). wait_prior_grid: returns when the kernel before this
// one in the stream has finished and its writes are visible. launch_dependents: this block no
// longer holds the next kernel back.
__device__ __forceinline__ void wait_prior_grid() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void launch_dependents() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

}  // namespace tcu::tc
