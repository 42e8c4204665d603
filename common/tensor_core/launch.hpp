#pragma once
// Launch sizes every chapter's host code shares (SM count, grid sizes) and temporary device memory.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tcu::tc {

// Multiprocessors of the current device (cached per device; 1 when the query fails: a valid grid).
int sm_count();

// Blocks for a grid-stride kernel with `work_blocks` blocks of work: at most `per_sm` per SM, at least 1.
int grid_for(std::int64_t work_blocks, int per_sm);

// The same, capped at one resident wave of `kernel` (`threads` threads, `dynamic_smem` bytes each).
int resident_grid_size(const void* kernel, int threads, std::int64_t work_blocks, std::size_t dynamic_smem = 0);
// cudaFuncSetAttribute(kernel, MaxDynamicSharedMemorySize, bytes). It and the occupancy above are
// asked once per kernel, shape and device (a small call is mostly host calls) and kept for the
// process, as the pool below is: no cudaDeviceReset between calls.
cudaError_t allow_dynamic_smem(const void* kernel, std::size_t bytes);

// A grid for num_segments × segment_size elements spread over warps (03/04's any-size and walk
// kernels): a warp per 4096 elements at least, no more warps than segments, one resident wave.
int segment_grid_size(const void* kernel, int warps_per_block, std::int64_t num_segments, std::int64_t segment_size);

// Stream-ordered temporary device memory (e.g. a second pass's partials) from a pool private to the
// library that keeps its memory between calls (the default pool of cudaMallocAsync maps it again
// after every synchronisation: tens of microseconds). TempBuffer frees, stream-ordered, at scope end.
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
