#include "05_block_grid/bench/baselines.cuh"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <cuda/std/version>  // CCCL_VERSION
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>

#include "05_block_grid/bench/cub_call.cuh"
#include "common/tensor_core/launch.hpp"

#if CCCL_VERSION >= 3004000  // determinism requirements of the environment overloads
#include <cuda/__execution/determinism.h>
#include <cuda/__execution/require.h>
#include <cuda/stream_ref>
#define TCU_HAVE_CUB_DETERMINISTIC_SCAN 1
#else
#define TCU_HAVE_CUB_DETERMINISTIC_SCAN 0
#endif

namespace tcu::bench::device {
namespace {

struct SegmentOf {
  std::int64_t size;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i / size; }
};

}  // namespace

cudaError_t cub_device_reduce(const __half* in, float* out, std::int64_t n, cudaStream_t stream) {
  auto it = thrust::make_transform_iterator(in, HalfToFloat{});
  return with_temp([&](void* t, std::size_t& b) {
    return cub::DeviceReduce::Reduce(t, b, it, out, n, ::cuda::std::plus<float>{}, 0.0f, stream);
  }, stream);
}

cudaError_t thrust_reduce(const __half* in, float* out, std::int64_t n, cudaStream_t stream) {
  auto it = thrust::make_transform_iterator(in, HalfToFloat{});
  const float s = thrust::reduce(thrust::cuda::par.on(stream), it, it + n, 0.0f, ::cuda::std::plus<float>{});
  return cudaMemcpyAsync(out, &s, sizeof(float), cudaMemcpyHostToDevice, stream);
}

// fp16 in, fp32 or fp16 out, accumulated in fp32 like the chapter's scans (CUB's InclusiveSum on
// __half would accumulate in fp16: with 2^28 values its rounding errors alone pass the bound the
// chapter holds every scan to). For fp16 out CUB converts each fp32 prefix to __half on store.
template <class OutT>
cudaError_t cub_device_scan(const __half* in, OutT* out, std::int64_t n, bool inclusive, cudaStream_t stream) {
  auto it = thrust::make_transform_iterator(in, HalfToFloat{});
  return with_temp([&](void* t, std::size_t& b) {
    return inclusive ? cub::DeviceScan::InclusiveScan(t, b, it, out, ::cuda::std::plus<float>{}, n, stream)
                     : cub::DeviceScan::ExclusiveScan(t, b, it, out, ::cuda::std::plus<float>{}, 0.0f, n, stream);
  }, stream);
}

bool have_cub_deterministic_scan() { return TCU_HAVE_CUB_DETERMINISTIC_SCAN != 0; }

// The environment overload allocates its own temporary storage (stream-ordered, on `stream`): the
// device's default pool is told, once per device, to keep freed memory, so that no call pays for
// mapping it again.
cudaError_t cub_device_scan_deterministic(const __half* in, float* out, std::int64_t n, cudaStream_t stream) {
#if TCU_HAVE_CUB_DETERMINISTIC_SCAN
  static bool kept[64] = {};
  int device = 0;
  cudaMemPool_t pool = nullptr;
  if (cudaGetDevice(&device) == cudaSuccess && device < 64 && !kept[device] &&
      cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
    std::uint64_t keep = ~std::uint64_t(0);
    kept[device] = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) == cudaSuccess;
  }
  const auto env = ::cuda::std::execution::env{
      ::cuda::stream_ref{stream}, ::cuda::execution::require(::cuda::execution::determinism::run_to_run)};
  return cub::DeviceScan::InclusiveScan(in, out, ::cuda::std::plus<float>{}, n, env);
#else
  (void)in, (void)out, (void)n, (void)stream;
  return cudaErrorNotSupported;
#endif
}

template <class OutT>
cudaError_t thrust_scan(const __half* in, OutT* out, std::int64_t n, bool inclusive, cudaStream_t stream) {
  auto it = thrust::make_transform_iterator(in, HalfToFloat{});
  if (inclusive) thrust::inclusive_scan(thrust::cuda::par.on(stream), it, it + n, out, ::cuda::std::plus<float>{});
  else thrust::exclusive_scan(thrust::cuda::par.on(stream), it, it + n, out, 0.0f, ::cuda::std::plus<float>{});
  return cudaGetLastError();
}

cudaError_t cub_scan_by_key(const __half* in, float* out, std::int64_t num_segments, std::int64_t segment_size,
                            cudaStream_t stream) {
  auto keys = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), SegmentOf{segment_size});
  auto vals = thrust::make_transform_iterator(in, HalfToFloat{});
  const std::int64_t n = num_segments * segment_size;
  return with_temp([&](void* t, std::size_t& b) {
    return cub::DeviceScan::InclusiveScanByKey(t, b, keys, vals, out, ::cuda::std::plus<float>{}, n,
                                               ::cuda::std::equal_to<std::int64_t>{}, stream);
  }, stream);
}

cudaError_t thrust_scan_by_key(const __half* in, float* out, std::int64_t num_segments, std::int64_t segment_size,
                               cudaStream_t stream) {
  auto keys = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), SegmentOf{segment_size});
  auto vals = thrust::make_transform_iterator(in, HalfToFloat{});
  const std::int64_t n = num_segments * segment_size;
  thrust::inclusive_scan_by_key(thrust::cuda::par.on(stream), keys, keys + n, vals, out);
  return cudaGetLastError();
}

template cudaError_t cub_device_scan<__half>(const __half*, __half*, std::int64_t, bool, cudaStream_t);
template cudaError_t cub_device_scan<float>(const __half*, float*, std::int64_t, bool, cudaStream_t);
template cudaError_t thrust_scan<__half>(const __half*, __half*, std::int64_t, bool, cudaStream_t);
template cudaError_t thrust_scan<float>(const __half*, float*, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::bench::device
