#pragma once
// Launching the chapter's block kernels: their shared memory (BlockSmem, about 51 KB) is above
// the 48 KB a kernel gets without asking, so it is dynamic, and each kernel is allowed it once.
#include <cuda_runtime.h>

#include "05_block_grid/kernels/block_tile.cuh"

namespace tcu::detail::device {

inline constexpr std::size_t kBlockSmemBytes = sizeof(BlockSmem);

// The block's shared memory, inside a kernel launched with kBlockSmemBytes of dynamic memory.
__device__ __forceinline__ BlockSmem& block_smem() {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  return *reinterpret_cast<BlockSmem*>(smem_raw);
}

// Allows `kernel` its dynamic shared memory (once per kernel and process is enough; repeated
// calls are cheap and harmless).
template <class Kernel>
cudaError_t allow_block_smem(Kernel* kernel) {
  return cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(kBlockSmemBytes));
}

}  // namespace tcu::detail::device
