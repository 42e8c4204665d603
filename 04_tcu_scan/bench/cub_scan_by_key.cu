// Baseline: cub::DeviceScan::InclusiveScanByKey / ExclusiveScanByKey (CCCL has no segmented
// scan with fixed-size segments; by-key is the library answer), keys i / segment_size from a
// counting iterator, values converted to float on the fly (fp32 accumulation).
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda/std/functional>

#include <climits>
#include <stdexcept>

#include "04_tcu_scan/bench/baselines.cuh"
#include "common/check.cuh"

namespace tcu::bench::scan {

template <class OutT>
void cub_scan_by_key(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                     bool inclusive, Scratch& scratch, cudaStream_t stream) {
  const std::int64_t n64 = num_segments * segment_size;
  if (n64 == 0) return;
  if (n64 > INT_MAX) throw std::invalid_argument("cub_scan_by_key: at most 2^31 - 1 elements");
  const int n = static_cast<int>(n64);
  auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator<std::int64_t>(0),
                                              SegmentKey{segment_size});
  auto values = thrust::make_transform_iterator(in, HalfToFloat{});
  std::size_t bytes = 0;
  if (inclusive) {
    TCU_CUDA_CHECK(cub::DeviceScan::InclusiveScanByKey(nullptr, bytes, keys, values, out, ::cuda::std::plus<>{}, n,
                                                       ::cuda::std::equal_to<>{}, stream));
    TCU_CUDA_CHECK(cub::DeviceScan::InclusiveScanByKey(scratch.get(bytes), bytes, keys, values, out,
                                                       ::cuda::std::plus<>{}, n, ::cuda::std::equal_to<>{}, stream));
  } else {
    TCU_CUDA_CHECK(cub::DeviceScan::ExclusiveScanByKey(nullptr, bytes, keys, values, out, ::cuda::std::plus<>{}, 0.0f,
                                                       n, ::cuda::std::equal_to<>{}, stream));
    TCU_CUDA_CHECK(cub::DeviceScan::ExclusiveScanByKey(scratch.get(bytes), bytes, keys, values, out,
                                                       ::cuda::std::plus<>{}, 0.0f, n, ::cuda::std::equal_to<>{},
                                                       stream));
  }
  TCU_CHECK_LAUNCH();
}

template void cub_scan_by_key<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool, Scratch&,
                                      cudaStream_t);
template void cub_scan_by_key<float>(const __half*, float*, std::int64_t, std::int64_t, bool, Scratch&,
                                     cudaStream_t);

}  // namespace tcu::bench::scan
