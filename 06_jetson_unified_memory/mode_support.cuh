#pragma once
// What the five GPU modes share: owners for each kind of allocation, a stream, and the
// reduction step (tcu::DeviceReduce::Sum of chapter 05, timed with the host clock and with events).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>

#include "06_jetson_unified_memory/host_data.hpp"
#include "06_jetson_unified_memory/phase_clock.hpp"
#include "06_jetson_unified_memory/unified_memory.hpp"
#include "common/check.cuh"
#include "common/timer.cuh"

namespace tcu::unified_memory::detail {

// Owners that release with the matching call (errors are not thrown from a destructor).
struct FreeWithStdFree {
  void operator()(void* p) const { std::free(p); }
};
struct FreeWithCudaFreeHost {  // cudaMallocHost and cudaHostAlloc
  void operator()(void* p) const { cudaFreeHost(p); }
};
struct FreeWithCudaFree {  // cudaMalloc and cudaMallocManaged
  void operator()(void* p) const { cudaFree(p); }
};
template <class T>
using PageableBuffer = std::unique_ptr<T, FreeWithStdFree>;
template <class T>
using PinnedBuffer = std::unique_ptr<T, FreeWithCudaFreeHost>;
template <class T>
using CudaBuffer = std::unique_ptr<T, FreeWithCudaFree>;

template <class T>
PageableBuffer<T> allocate_pageable(std::size_t count) {
  void* p = std::malloc(count * sizeof(T));
  if (!p) throw std::bad_alloc();
  return PageableBuffer<T>(static_cast<T*>(p));
}
template <class T>
PinnedBuffer<T> allocate_pinned(std::size_t count, unsigned flags = cudaHostAllocDefault) {
  void* p = nullptr;
  // cudaMallocHost is cudaHostAlloc with the default flags; spelled out for the pinned mode.
  if (flags == cudaHostAllocDefault)
    TCU_CUDA_CHECK(cudaMallocHost(&p, count * sizeof(T)));
  else
    TCU_CUDA_CHECK(cudaHostAlloc(&p, count * sizeof(T), flags));
  return PinnedBuffer<T>(static_cast<T*>(p));
}
template <class T>
CudaBuffer<T> allocate_device(std::size_t count) {
  void* p = nullptr;
  TCU_CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
  return CudaBuffer<T>(static_cast<T*>(p));
}
template <class T>
CudaBuffer<T> allocate_managed(std::size_t count) {
  void* p = nullptr;
  TCU_CUDA_CHECK(cudaMallocManaged(&p, count * sizeof(T), cudaMemAttachGlobal));
  return CudaBuffer<T>(static_cast<T*>(p));
}

class Stream {
 public:
  Stream() { TCU_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_{};
};

// What every GPU mode shares: the tolerance of the device-wide sum.
class GpuMode : public Mode {
 public:
  Tolerance tolerance(std::int64_t n) const override { return gpu_reduction_tolerance(n); }
};

// One GPU workflow in progress. The constructor checks the workload and creates the stream and
// the events *before* it starts the clock (they belong to no phase); the mode then allocates,
// calls end(Phase::alloc), fill(), moves data and end(Phase::transfer) where it has a transfer,
// reduce(), reads the sum back and end(Phase::readback), and returns finish(sum).
class GpuRun {
 public:
  explicit GpuRun(const Workload& w);
  cudaStream_t stream() const { return stream_.get(); }
  void end(Phase p) { clock_.end_phase(p); }
  // The host fill of the input (every core), then end(Phase::fill).
  void fill(__half* host_visible_input);
  // The kernel phase: tcu::DeviceReduce::Sum of the n inputs into *d_out, then a wait for it;
  // timed with the clock and with events.
  void reduce(const __half* d_in, float* d_out);
  void synchronize() const { TCU_CUDA_CHECK(cudaStreamSynchronize(stream_.get())); }
  RunOutcome finish(double sum);

 private:
  Workload w_;
  Stream stream_;
  EventPair events_;
  PhaseClock clock_;
  double kernel_event_ms_ = 0;
};

// The value a host read of a float the GPU wrote (mapped or managed memory) sees: read once,
// through a volatile access, after the synchronisation that made it visible.
inline double read_result(const float* p) { return static_cast<double>(*static_cast<const volatile float*>(p)); }

}  // namespace tcu::unified_memory::detail
