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
// The occupancy is asked once per kernel, shape and device: a small call's time is mostly host calls.
int resident_grid_size(const void* kernel, int threads, std::int64_t work_blocks, std::size_t dynamic_smem = 0);

// cudaFuncSetAttribute(kernel, MaxDynamicSharedMemorySize, bytes), once per kernel, size and device.
// Like the temporary pool below, these answers are kept for the process: a cudaDeviceReset
// between two calls of the library is not supported (the attribute would not be set again).
cudaError_t allow_dynamic_smem(const void* kernel, std::size_t bytes);

// A grid for a kernel that spreads num_segments × segment_size elements over its warps (the any-size
// and walk kernels of chapters 03 and 04): a warp per 4096 elements at least (fewer, longer shares
// keep each warp's loads streaming), never more warps than segments, at most one resident wave.
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
