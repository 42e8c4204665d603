// The second pass over the fp32 partials of chunked segments (chunks.hpp).
#include "common/tensor_core/chunks.hpp"

#include "common/int_math.hpp"
#include "common/tensor_core/dependent_launch.cuh"
#include "common/tensor_core/launch.hpp"

namespace tcu::tc {
namespace {

constexpr int kPassThreads = 256;

// One block per segment: each thread adds a strided share in order, then a fixed tree.
__global__ void __launch_bounds__(kPassThreads)
sum_partials_block_kernel(const float* __restrict__ partials, float* __restrict__ out, std::int64_t num_segments,
                    std::int64_t chunks_per_segment) {
  __shared__ float warp_sums[kPassThreads / 32];
  wait_prior_grid();  // the first pass's partials (a dependent launch)
  for (std::int64_t seg = blockIdx.x; seg < num_segments; seg += gridDim.x) {
    const float* p = partials + seg * chunks_per_segment;
    float t = 0.0f;
#pragma unroll 8  // the loads in flight together; the adds stay in order
    for (std::int64_t c = threadIdx.x; c < chunks_per_segment; c += kPassThreads) t += p[c];
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
__global__ void sum_partials_thread_kernel(const float* __restrict__ partials, float* __restrict__ out,
                                        std::int64_t num_segments, std::int64_t chunks_per_segment) {
  wait_prior_grid();  // the first pass's partials (a dependent launch)
  for (std::int64_t seg = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; seg < num_segments;
       seg += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float* p = partials + seg * chunks_per_segment;
    float t = p[0];
    for (std::int64_t c = 1; c < chunks_per_segment; ++c) t += p[c];
    out[seg] = t;
  }
}

}  // namespace

cudaError_t sum_partials(const float* partials, float* out, std::int64_t num_segments,
                         std::int64_t chunks_per_segment, cudaStream_t stream) {
  if (chunks_per_segment <= kFewPartials) {
    return launch_dependent(sum_partials_thread_kernel, grid_for(ceil_div(num_segments, kPassThreads), 8),
                            kPassThreads, stream, partials, out, num_segments, chunks_per_segment);
  }
  return launch_dependent(sum_partials_block_kernel, grid_for(num_segments, 8), kPassThreads, stream, partials, out,
                          num_segments, chunks_per_segment);
}

}  // namespace tcu::tc
