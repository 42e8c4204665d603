#include "common/tensor_core/launch.hpp"

#include <mutex>

namespace tcu::tc {

cudaError_t temp_alloc(void** ptr, std::size_t bytes, cudaStream_t stream) {
  constexpr int kMaxDevices = 64;
  static std::mutex mutex;
  static cudaMemPool_t pools[kMaxDevices] = {};
  static bool tried[kMaxDevices] = {};
  *ptr = nullptr;
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  cudaMemPool_t pool = nullptr;
  if (device >= 0 && device < kMaxDevices) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!tried[device]) {
      tried[device] = true;
      cudaMemPoolProps props = {};
      props.allocType = cudaMemAllocationTypePinned;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = device;
      if (cudaMemPoolCreate(&pools[device], &props) == cudaSuccess) {
        std::uint64_t keep = UINT64_MAX;  // never trim: temporaries are small and reused
        cudaMemPoolSetAttribute(pools[device], cudaMemPoolAttrReleaseThreshold, &keep);
      } else {
        pools[device] = nullptr;
        cudaGetLastError();  // no pools here (old driver): the default allocator below
      }
    }
    pool = pools[device];
  }
  if (pool) return cudaMallocFromPoolAsync(ptr, bytes, pool, stream);
  return cudaMallocAsync(ptr, bytes, stream);
}

cudaError_t temp_free(void* ptr, cudaStream_t stream) { return ptr ? cudaFreeAsync(ptr, stream) : cudaSuccess; }

}  // namespace tcu::tc
