// Baseline: thrust::inclusive_scan_by_key / exclusive_scan_by_key with keys i / segment_size
// (a transform of a counting iterator: no key array is read from memory) and values converted
// to float on the fly, so Thrust accumulates in fp32 like the tensor-core scans.
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/system/cuda/execution_policy.h>

#include "04_tcu_scan/bench/baselines.cuh"
#include "common/check.cuh"

namespace tcu::bench::scan {

template <class OutT>
void thrust_scan_by_key(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                        bool inclusive, cudaStream_t stream) {
  const std::int64_t n = num_segments * segment_size;
  if (n == 0) return;
  auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator<std::int64_t>(0),
                                              SegmentKey{segment_size});
  auto values = thrust::make_transform_iterator(in, HalfToFloat{});
  if (inclusive)
    thrust::inclusive_scan_by_key(thrust::cuda::par.on(stream), keys, keys + n, values, out);
  else
    thrust::exclusive_scan_by_key(thrust::cuda::par.on(stream), keys, keys + n, values, out, 0.0f);
  TCU_CHECK_LAUNCH();
}

template void thrust_scan_by_key<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template void thrust_scan_by_key<float>(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::bench::scan
