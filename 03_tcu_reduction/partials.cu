// The second pass of split segments, and launch sizes (partials.cuh).
#include "03_tcu_reduction/partials.cuh"

#include <algorithm>
#include <cstdint>
#include <mutex>

namespace tcu::reduction {
namespace {

constexpr int kPassThreads = 256;

// One block per segment: each thread adds a strided share in order, then a fixed tree.
__global__ void __launch_bounds__(kPassThreads)
sum_partials_kernel(const float* __restrict__ partials, float* __restrict__ out, long long num_segments,
                    long long chunks_per_segment) {
  __shared__ float warp_sums[kPassThreads / 32];
  for (long long seg = blockIdx.x; seg < num_segments; seg += gridDim.x) {
    const float* p = partials + seg * chunks_per_segment;
    float t = 0.0f;
    for (long long c = threadIdx.x; c < chunks_per_segment; c += kPassThreads) t += p[c];
#pragma unroll
    for (int o = 16; o >= 1; o >>= 1) t += __shfl_xor_sync(0xffffffffu, t, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = t;
    __syncthreads();
    if (threadIdx.x < 32) {
      float w = (threadIdx.x < kPassThreads / 32) ? warp_sums[threadIdx.x] : 0.0f;
#pragma unroll
      for (int o = 16; o >= 1; o >>= 1) w += __shfl_xor_sync(0xffffffffu, w, o);
      if (threadIdx.x == 0) out[seg] = w;
    }
    __syncthreads();
  }
}

// Few partials per segment (segments split into at most kFewPartials chunks, as when there are
// many long segments): a thread per segment adds them in chunk order. A block per segment
// would leave all but a few of its threads idle and cost more time than the first pass saves.
constexpr long long kFewPartials = 8;

__global__ void sum_few_partials_kernel(const float* __restrict__ partials, float* __restrict__ out,
                                        long long num_segments, long long chunks_per_segment) {
  for (long long seg = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; seg < num_segments;
       seg += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float* p = partials + seg * chunks_per_segment;
    float t = p[0];
    for (long long c = 1; c < chunks_per_segment; ++c) t += p[c];
    out[seg] = t;
  }
}

__global__ void halves_to_floats_kernel(const __half* __restrict__ in, float* __restrict__ out, long long count) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = __half2float(in[i]);
}

}  // namespace

int sm_count() {
  static int cached[64] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0) return 1;
  if (device < 64 && cached[device] > 0) return cached[device];
  int sms = 1;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms < 1) sms = 1;
  if (device < 64) cached[device] = sms;
  return sms;
}

int grid_for(long long work_blocks, int per_sm) {
  const long long cap = static_cast<long long>(sm_count()) * std::max(per_sm, 1);
  return static_cast<int>(std::max(1LL, std::min(work_blocks, cap)));
}

cudaError_t sum_partials(const float* partials, float* out, long long num_segments, long long chunks_per_segment,
                         cudaStream_t stream) {
  if (chunks_per_segment <= kFewPartials) {
    sum_few_partials_kernel<<<grid_for((num_segments + kPassThreads - 1) / kPassThreads, 8), kPassThreads, 0,
                              stream>>>(partials, out, num_segments, chunks_per_segment);
    return cudaGetLastError();
  }
  sum_partials_kernel<<<grid_for(num_segments, 8), kPassThreads, 0, stream>>>(partials, out, num_segments,
                                                                             chunks_per_segment);
  return cudaGetLastError();
}

cudaError_t temp_alloc(void** ptr, std::size_t bytes, cudaStream_t stream) {
  constexpr int kMaxDevices = 64;
  static std::mutex mutex;
  static cudaMemPool_t pools[kMaxDevices] = {};
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  cudaMemPool_t pool = nullptr;
  if (device >= 0 && device < kMaxDevices) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!pools[device]) {
      cudaMemPoolProps props = {};
      props.allocType = cudaMemAllocationTypePinned;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = device;
      if (cudaMemPoolCreate(&pools[device], &props) == cudaSuccess) {
        std::uint64_t keep = UINT64_MAX;  // never trim: the partials are small and reused
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

cudaError_t halves_to_floats(const __half* in, float* out, long long count, cudaStream_t stream) {
  halves_to_floats_kernel<<<grid_for((count + 255) / 256, 8), 256, 0, stream>>>(in, out, count);
  return cudaGetLastError();
}

}  // namespace tcu::reduction
