#pragma once
// The WMMA load/store preconditions (CUDA C++ Programming Guide, "Warp Matrix Functions"):
//   - the pointer passed to load_matrix_sync / store_matrix_sync is 256-bit (32-byte) aligned;
//   - ldm, the leading dimension in elements, is a multiple of 8 for __half and bf16
//     elements and a multiple of 4 for float (i.e. a multiple of 16 bytes).
// Breaking them is undefined behaviour: a "misaligned address" fault that kills the CUDA
// context, or — worse — silently wrong data. Check before launching, not after.
#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

namespace tcu {

inline constexpr std::size_t kWmmaPointerAlignment = 32;  // bytes
inline constexpr std::size_t kWmmaLdmBytesMultiple = 16;  // bytes

__host__ __device__ inline bool wmma_pointer_ok(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % kWmmaPointerAlignment == 0;
}

// `ldm` in elements of `element_bytes` bytes (2 for __half/bf16, 4 for float/tf32 storage).
__host__ __device__ inline bool wmma_ldm_ok(std::size_t ldm, std::size_t element_bytes) {
  return ldm > 0 && (ldm * element_bytes) % kWmmaLdmBytesMultiple == 0;
}

// Empty when a tile load of (p, ldm) is legal; otherwise what is wrong and how to fix it.
inline std::string wmma_load_problem(const void* p, std::size_t ldm, std::size_t element_bytes) {
  std::string why;
  if (!wmma_pointer_ok(p))
    why += "pointer is " + std::to_string(reinterpret_cast<std::uintptr_t>(p) % kWmmaPointerAlignment) +
           " bytes past a 32-byte boundary (stage the tile through aligned shared memory)";
  if (!wmma_ldm_ok(ldm, element_bytes)) {
    if (!why.empty()) why += "; ";
    why += "ldm = " + std::to_string(ldm) + " elements of " + std::to_string(element_bytes) +
           " bytes is not a multiple of 16 bytes (pad rows to a multiple of " +
           std::to_string(kWmmaLdmBytesMultiple / element_bytes) + " elements)";
  }
  return why;
}

}  // namespace tcu
