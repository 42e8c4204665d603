// Baselines (baselines.cuh). The warp and block kernels are tuned the way the TCU kernels are:
// 16-byte loads, four of them in flight per thread, grid-stride loops. Their stores are one
// float per segment: the lanes that hold the sums of consecutive segments store side by side
// (a warp writes 32, 16, 8 … consecutive floats at once for short segments), so every store
// fills whole 32-byte sectors, and the outputs are at most 4 of every 36 bytes moved (s >= 16).
#include "03_tcu_reduction/bench/baselines.cuh"

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
#include <cuda/std/version>  // CCCL_VERSION

#include <climits>

#include "common/check.cuh"
#include "common/int_math.hpp"
#include "common/segments.hpp"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"

namespace tcu::bench::reduce {
namespace {

constexpr int kThreads = 256;
constexpr int kLoadsInFlight = 4;

// Σ of elements [first, len) of p taken every `step` pieces of 8, with kLoadsInFlight loads
// issued before they are added (the same loads the TCU kernels make).
__device__ __forceinline__ float strided_piece_sum(const __half* p, std::int64_t len, std::int64_t first, std::int64_t step) {
  float t = 0.0f;
  for (std::int64_t e = first; e < len; e += step * kLoadsInFlight) {
    tc::Piece piece[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) {
      const std::int64_t at = e + k * step;
      piece[k] = (at < len) ? tc::load_piece<tc::Cache::read_only>(p + at, len - at) : tc::zero_piece();
    }
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) t += tc::piece_sum(piece[k]);
  }
  return t;
}

// A group of kGroup lanes (1 … 32, a power of two) per segment; kUseCub: cub::WarpReduce with
// a logical warp of kGroup, else __shfl_xor_sync.
template <int kGroup, bool kUseCub>
__global__ void __launch_bounds__(kThreads)
group_per_segment_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                         std::int64_t segment_size) {
  static_assert(kGroup >= 1 && kGroup <= 32 && (kGroup & (kGroup - 1)) == 0, "group: a power of two <= 32");
  using WarpReduce = cub::WarpReduce<float, kGroup>;
  __shared__ typename WarpReduce::TempStorage temp[kThreads / kGroup];
  const int sub = static_cast<int>(threadIdx.x % kGroup);
  const int group_in_block = static_cast<int>(threadIdx.x / kGroup);
  const std::int64_t groups_per_grid = static_cast<std::int64_t>(gridDim.x) * (kThreads / kGroup);
  // The loop bound is the same for the whole warp, so shuffles always see every lane.
  const std::int64_t warp_first =
      static_cast<std::int64_t>(blockIdx.x) * (kThreads / kGroup) + (threadIdx.x / 32) * (32 / kGroup);
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
    for (std::int64_t base = warp_first * kLoadsInFlight; base < num_segments;
         base += groups_per_grid * kLoadsInFlight) {
      tc::Piece piece[kLoadsInFlight];
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) {
        const std::int64_t seg = base + static_cast<std::int64_t>(u) * (32 / kGroup) + (threadIdx.x % 32) / kGroup;
        const std::int64_t at = sub * std::int64_t(8);
        piece[u] = (seg < num_segments && at < segment_size)
                       ? tc::load_piece<tc::Cache::read_only>(x + seg * segment_size + at, segment_size - at)
                       : tc::zero_piece();
      }
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) {
        const std::int64_t seg = base + static_cast<std::int64_t>(u) * (32 / kGroup) + (threadIdx.x % 32) / kGroup;
        const float t = reduce(tc::piece_sum(piece[u]), group_in_block);
        if (sub == 0 && seg < num_segments) out[seg] = t;
        if constexpr (kUseCub) __syncwarp();  // temp storage reused by the next u
      }
    }
    return;
  }
  for (std::int64_t base = warp_first; base < num_segments; base += groups_per_grid) {
    const std::int64_t seg = base + (threadIdx.x % 32) / kGroup;
    float t = 0.0f;
    if (seg < num_segments)
      t = strided_piece_sum(x + seg * segment_size, segment_size, sub * std::int64_t(8), kGroup * std::int64_t(8));
    t = reduce(t, group_in_block);
    if (sub == 0 && seg < num_segments) out[seg] = t;
  }
}

// One block of kThreads per segment, cub::BlockReduce.
__global__ void __launch_bounds__(kThreads)
block_per_segment_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                         std::int64_t segment_size) {
  using BlockReduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  for (std::int64_t seg = blockIdx.x; seg < num_segments; seg += gridDim.x) {
    float t = strided_piece_sum(x + seg * segment_size, segment_size, threadIdx.x * std::int64_t(8),
                                kThreads * std::int64_t(8));
    t = BlockReduce(temp).Sum(t);
    if (threadIdx.x == 0) out[seg] = t;
    __syncthreads();  // temp is reused by the next segment
  }
}

template <bool kUseCub>
cudaError_t launch_group_per_segment(const __half* x, float* out, std::int64_t ns, std::int64_t s, cudaStream_t stream) {
  // Lanes per segment: one 16-byte piece per lane at least, a warp at most.
  std::int64_t want = (s + 7) / 8;
  int group = 1;
  while (group < 32 && group < want) group *= 2;
  auto launch = [&](auto kernel, int g) {
    const std::int64_t blocks = (ns + kThreads / g - 1) / (kThreads / g);
    kernel<<<tc::grid_for(blocks, 8), kThreads, 0, stream>>>(x, out, ns, s);
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
  std::int64_t segment_size;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i * segment_size; }
};

}  // namespace

// The fixed-size overload of DeviceSegmentedReduce::Reduce appeared in CCCL 3.1.
#if CCCL_VERSION >= 3001000
#define TCU_HAVE_CUB_FIXED_SEGMENTED_REDUCE 1
#else
#define TCU_HAVE_CUB_FIXED_SEGMENTED_REDUCE 0
#endif

const char* baseline_name(Baseline b) {
  switch (b) {
    case Baseline::cub_segmented_reduce: return "cub_segmented_reduce";
    case Baseline::cub_fixed_segmented_reduce: return "cub_fixed_segmented_reduce";
    case Baseline::cub_device_reduce: return "cub_device_reduce";
    case Baseline::cub_warp_reduce: return "cub_warp_reduce";
    case Baseline::cub_block_reduce: return "cub_block_reduce";
    case Baseline::shuffle_16b: return "shuffle_16b";
  }
  return "?";
}

bool baseline_available(Baseline b) {
  return b != Baseline::cub_fixed_segmented_reduce || TCU_HAVE_CUB_FIXED_SEGMENTED_REDUCE;
}

std::vector<Baseline> available_baselines() {
  std::vector<Baseline> v;
  for (Baseline b : {Baseline::cub_segmented_reduce, Baseline::cub_fixed_segmented_reduce, Baseline::cub_warp_reduce,
                     Baseline::cub_block_reduce, Baseline::shuffle_16b, Baseline::cub_device_reduce})
    if (baseline_available(b)) v.push_back(b);
  return v;
}

bool baseline_whole_array_only(Baseline b) { return b == Baseline::cub_device_reduce; }

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
      auto offsets = thrust::make_transform_iterator(thrust::make_counting_iterator<std::int64_t>(0),
                                                     TimesSegment{segment_size});
      std::size_t bytes = 0;
      cudaError_t e = cub::DeviceSegmentedReduce::Reduce(nullptr, bytes, d_in, d_out, num_segments, offsets,
                                                         offsets + 1, ::cuda::std::plus<float>{}, 0.0f, stream);
      if (e != cudaSuccess) return e;
      return cub::DeviceSegmentedReduce::Reduce(temp.get(bytes), bytes, d_in, d_out, num_segments, offsets,
                                                offsets + 1, ::cuda::std::plus<float>{}, 0.0f, stream);
    }
    case Baseline::cub_fixed_segmented_reduce: {
#if TCU_HAVE_CUB_FIXED_SEGMENTED_REDUCE
      if (segment_size > INT_MAX) return cudaErrorInvalidValue;  // the overload takes an int
      const int seg = static_cast<int>(segment_size);
      std::size_t bytes = 0;
      cudaError_t e = cub::DeviceSegmentedReduce::Reduce(nullptr, bytes, d_in, d_out, num_segments, seg,
                                                         ::cuda::std::plus<float>{}, 0.0f, stream);
      if (e != cudaSuccess) return e;
      return cub::DeviceSegmentedReduce::Reduce(temp.get(bytes), bytes, d_in, d_out, num_segments, seg,
                                                ::cuda::std::plus<float>{}, 0.0f, stream);
#else
      return cudaErrorNotSupported;
#endif
    }
    case Baseline::cub_device_reduce:
      if (num_segments != 1) return cudaErrorInvalidValue;
      return cub_reduce_fp32(temp, d_in, d_out, segment_size, stream);
    case Baseline::cub_warp_reduce:
      return launch_group_per_segment<true>(d_in, d_out, num_segments, segment_size, stream);
    case Baseline::shuffle_16b:
      return launch_group_per_segment<false>(d_in, d_out, num_segments, segment_size, stream);
    case Baseline::cub_block_reduce:
      block_per_segment_kernel<<<tc::grid_for(num_segments, 8), kThreads, 0, stream>>>(d_in, d_out, num_segments,
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

}  // namespace tcu::bench::reduce
