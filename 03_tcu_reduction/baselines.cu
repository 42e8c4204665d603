// Baselines (baselines.cuh). The warp and block kernels are tuned the way the TCU kernels are:
// 16-byte loads, four of them in flight per thread, grid-stride loops.
#include "03_tcu_reduction/baselines.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>

#include <cuda/std/functional>

#include "03_tcu_reduction/partials.cuh"
#include "03_tcu_reduction/segment_staging.cuh"
#include "common/check.cuh"
#include "common/segments.hpp"

namespace tcu::reduction {
namespace {

constexpr int kThreads = 256;
constexpr int kLoadsInFlight = 4;

// Σ of elements [first, len) of p taken every `step` pieces of 8, with kLoadsInFlight loads
// issued before they are added (the same loads the TCU kernels make).
__device__ __forceinline__ float strided_piece_sum(const __half* p, long long len, long long first, long long step) {
  float t = 0.0f;
  for (long long e = first; e < len; e += step * kLoadsInFlight) {
    staging::Piece piece[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      const long long at = e + k * step;
      piece[k] = (at < len) ? staging::load_masked8(p + at, len - at) : staging::zero_piece();
    }
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) t += staging::piece_sum(piece[k]);
  }
  return t;
}

// A group of kGroup lanes (1 … 32, a power of two) per segment; kUseCub: cub::WarpReduce with
// a logical warp of kGroup, else __shfl_xor_sync.
template <int kGroup, bool kUseCub>
__global__ void __launch_bounds__(kThreads)
group_per_segment_kernel(const __half* __restrict__ x, float* __restrict__ out, long long num_segments,
                         long long segment_size) {
  static_assert(kGroup >= 1 && kGroup <= 32 && (kGroup & (kGroup - 1)) == 0, "group: a power of two <= 32");
  using WarpReduce = cub::WarpReduce<float, kGroup>;
  __shared__ typename WarpReduce::TempStorage temp[kThreads / kGroup];
  const int sub = static_cast<int>(threadIdx.x % kGroup);
  const int group_in_block = static_cast<int>(threadIdx.x / kGroup);
  const long long groups_per_grid = static_cast<long long>(gridDim.x) * (kThreads / kGroup);
  // The loop bound is the same for the whole warp, so shuffles always see every lane.
  const long long warp_first =
      static_cast<long long>(blockIdx.x) * (kThreads / kGroup) + (threadIdx.x / 32) * (32 / kGroup);
  auto reduce = [&](float t, int slot) {
    if constexpr (kUseCub) {
      return WarpReduce(temp[slot]).Sum(t);
    } else {
#pragma unroll
      for (int o = kGroup / 2; o >= 1; o >>= 1) t += __shfl_xor_sync(0xffffffffu, t, o);
      return t;
    }
  };
  if (segment_size <= kGroup * 8) {
    // Short segments: one 16-byte piece per lane, kLoadsInFlight segments per group at once.
    for (long long base = warp_first * kLoadsInFlight; base < num_segments;
         base += groups_per_grid * kLoadsInFlight) {
      staging::Piece piece[kLoadsInFlight];
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) {
        const long long seg = base + static_cast<long long>(u) * (32 / kGroup) + (threadIdx.x % 32) / kGroup;
        const long long at = sub * 8LL;
        piece[u] = (seg < num_segments && at < segment_size)
                       ? staging::load_masked8(x + seg * segment_size + at, segment_size - at)
                       : staging::zero_piece();
      }
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) {
        const long long seg = base + static_cast<long long>(u) * (32 / kGroup) + (threadIdx.x % 32) / kGroup;
        const float t = reduce(staging::piece_sum(piece[u]), group_in_block);
        if (sub == 0 && seg < num_segments) out[seg] = t;
        if constexpr (kUseCub) __syncwarp();  // temp storage reused by the next u
      }
    }
    return;
  }
  for (long long base = warp_first; base < num_segments; base += groups_per_grid) {
    const long long seg = base + (threadIdx.x % 32) / kGroup;
    float t = 0.0f;
    if (seg < num_segments)
      t = strided_piece_sum(x + seg * segment_size, segment_size, sub * 8LL, kGroup * 8LL);
    t = reduce(t, group_in_block);
    if (sub == 0 && seg < num_segments) out[seg] = t;
  }
}

// One block of kThreads per segment, cub::BlockReduce.
__global__ void __launch_bounds__(kThreads)
block_per_segment_kernel(const __half* __restrict__ x, float* __restrict__ out, long long num_segments,
                         long long segment_size) {
  using BlockReduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  for (long long seg = blockIdx.x; seg < num_segments; seg += gridDim.x) {
    float t = strided_piece_sum(x + seg * segment_size, segment_size, threadIdx.x * 8LL, kThreads * 8LL);
    t = BlockReduce(temp).Sum(t);
    if (threadIdx.x == 0) out[seg] = t;
    __syncthreads();  // temp is reused by the next segment
  }
}

template <bool kUseCub>
cudaError_t launch_group_per_segment(const __half* x, float* out, long long ns, long long s, cudaStream_t stream) {
  // Lanes per segment: one 16-byte piece per lane at least, a warp at most.
  long long want = (s + 7) / 8;
  int group = 1;
  while (group < 32 && group < want) group *= 2;
  auto launch = [&](auto kernel, int g) {
    const long long blocks = (ns + kThreads / g - 1) / (kThreads / g);
    kernel<<<grid_for(blocks, 8), kThreads, 0, stream>>>(x, out, ns, s);
    return cudaGetLastError();
  };
  switch (group) {
    case 1: return launch(group_per_segment_kernel<1, kUseCub>, 1);
    case 2: return launch(group_per_segment_kernel<2, kUseCub>, 2);
    case 4: return launch(group_per_segment_kernel<4, kUseCub>, 4);
    case 8: return launch(group_per_segment_kernel<8, kUseCub>, 8);
    case 16: return launch(group_per_segment_kernel<16, kUseCub>, 16);
    default: return launch(group_per_segment_kernel<32, kUseCub>, 32);
  }
}

struct TimesSegment {
  long long segment_size;
  __host__ __device__ long long operator()(long long i) const { return i * segment_size; }
};

}  // namespace

const char* baseline_name(Baseline b) {
  switch (b) {
    case Baseline::cub_segmented_reduce: return "cub_segmented_reduce";
    case Baseline::cub_warp_reduce: return "cub_warp_reduce";
    case Baseline::cub_block_reduce: return "cub_block_reduce";
    case Baseline::shuffle_16b: return "shuffle_16b";
  }
  return "?";
}

CubTemp::~CubTemp() {
  if (ptr_) cudaFree(ptr_);
}

void* CubTemp::get(std::size_t bytes) {
  if (bytes > bytes_) {
    if (ptr_) TCU_CUDA_CHECK(cudaFree(ptr_));
    ptr_ = nullptr;
    bytes_ = 0;
    TCU_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
    bytes_ = bytes;
  }
  return ptr_;
}

cudaError_t baseline_segmented_reduce_sum(Baseline b, CubTemp& temp, const __half* d_in, float* d_out,
                                          std::int64_t num_segments, std::int64_t segment_size,
                                          cudaStream_t stream) {
  const SegmentCheck check = check_segments(d_in, d_out, num_segments, segment_size);
  if (check.status != cudaSuccess) return check.status;
  if (check.nothing_to_do) return cudaSuccess;
  switch (b) {
    case Baseline::cub_segmented_reduce: {
      auto offsets = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0),
                                                     TimesSegment{segment_size});
      std::size_t bytes = 0;
      cudaError_t e = cub::DeviceSegmentedReduce::Reduce(nullptr, bytes, d_in, d_out, num_segments, offsets,
                                                         offsets + 1, ::cuda::std::plus<float>{}, 0.0f, stream);
      if (e != cudaSuccess) return e;
      return cub::DeviceSegmentedReduce::Reduce(temp.get(bytes), bytes, d_in, d_out, num_segments, offsets,
                                                offsets + 1, ::cuda::std::plus<float>{}, 0.0f, stream);
    }
    case Baseline::cub_warp_reduce:
      return launch_group_per_segment<true>(d_in, d_out, num_segments, segment_size, stream);
    case Baseline::shuffle_16b:
      return launch_group_per_segment<false>(d_in, d_out, num_segments, segment_size, stream);
    case Baseline::cub_block_reduce:
      block_per_segment_kernel<<<grid_for(num_segments, 8), kThreads, 0, stream>>>(d_in, d_out, num_segments,
                                                                                 segment_size);
      return cudaGetLastError();
  }
  return cudaErrorInvalidValue;
}

cudaError_t cub_sum_fp16(CubTemp& temp, const __half* d_in, __half* d_out, std::int64_t n, cudaStream_t stream) {
  std::size_t bytes = 0;
  cudaError_t e = cub::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, n, stream);
  if (e != cudaSuccess) return e;
  return cub::DeviceReduce::Sum(temp.get(bytes), bytes, d_in, d_out, n, stream);
}

cudaError_t cub_reduce_fp32(CubTemp& temp, const __half* d_in, float* d_out, std::int64_t n, cudaStream_t stream) {
  std::size_t bytes = 0;
  cudaError_t e =
      cub::DeviceReduce::Reduce(nullptr, bytes, d_in, d_out, n, ::cuda::std::plus<float>{}, 0.0f, stream);
  if (e != cudaSuccess) return e;
  return cub::DeviceReduce::Reduce(temp.get(bytes), bytes, d_in, d_out, n, ::cuda::std::plus<float>{}, 0.0f, stream);
}

float thrust_reduce(const __half* d_in, std::int64_t n, cudaStream_t stream) {
  return thrust::reduce(thrust::cuda::par.on(stream), d_in, d_in + n, 0.0f, ::cuda::std::plus<float>{});
}

}  // namespace tcu::reduction
