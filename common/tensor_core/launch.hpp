#pragma once
// Launch sizes every chapter's host code shares (the SM count, grid sizes for grid-stride
// kernels) and temporary device memory.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tcu::tc {

// Multiprocessors of the current device (queried once per device, then cached; 1 when the
// query fails so that a launch still has a valid grid).
int sm_count();

// Blocks for a grid-stride kernel with `work_blocks` blocks of work: at most `per_sm` per SM,
// at least 1.
int grid_for(std::int64_t work_blocks, int per_sm);

// The same, capped at one resident wave: as many blocks of `kernel` (`threads` threads,
// `dynamic_smem` bytes) as the occupancy calculator says fit on all SMs at once.
int resident_grid_size(const void* kernel, int threads, std::int64_t work_blocks, std::size_t dynamic_smem = 0);

// --------------------------------------------------------------------------------------------
// Stream-ordered temporary device memory (e.g. a second pass's partials) from a pool private
// to the library that keeps its memory between calls: the default pool of cudaMallocAsync
// hands memory back at every synchronisation and maps it again on the next call, which costs
// tens of microseconds. TempBuffer frees, stream-ordered, when it goes out of scope.
cudaError_t temp_alloc(void** ptr, std::size_t bytes, cudaStream_t stream);
cudaError_t temp_free(void* ptr, cudaStream_t stream);

template <class T>
class TempBuffer {
 public:
  TempBuffer() = default;
  TempBuffer(const TempBuffer&) = delete;
  TempBuffer& operator=(const TempBuffer&) = delete;
  ~TempBuffer() { temp_free(ptr_, stream_); }
  cudaError_t allocate(std::int64_t count, cudaStream_t stream) {
    temp_free(ptr_, stream_);
    ptr_ = nullptr;
    stream_ = stream;
    void* p = nullptr;
    const cudaError_t e = temp_alloc(&p, static_cast<std::size_t>(count) * sizeof(T), stream);
    ptr_ = static_cast<T*>(p);
    return e;
  }
  T* get() const { return ptr_; }

 private:
  T* ptr_ = nullptr;
  cudaStream_t stream_ = 0;
};

}  // namespace tcu::tc
