// Baseline: cub::DeviceSegmentedScan (CCCL 3.3 or newer), the library's segmented scan, with
// fixed-size segments described by begin/end offset iterators (i · segment_size, computed on
// the fly: no offset array in memory), fp16 in, plus<float> (fp32 accumulation), OutT out.
// CUB gives every segment a thread block. Built against an older CCCL this file only reports
// that the baseline is not there (cub_segmented_scan_available() == false).
#include <cuda/std/version>  // CCCL_VERSION

#include <stdexcept>

#include "04_tcu_scan/bench/baselines.cuh"
#include "common/check.cuh"

#if CCCL_VERSION >= 3003000
#define TCU_HAVE_CUB_SEGMENTED_SCAN 1
#include <cub/device/device_segmented_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda/std/functional>
#else
#define TCU_HAVE_CUB_SEGMENTED_SCAN 0
#endif

namespace tcu::bench::scan {

bool cub_segmented_scan_available() { return TCU_HAVE_CUB_SEGMENTED_SCAN; }

#if TCU_HAVE_CUB_SEGMENTED_SCAN
namespace {
struct SegmentBegin {
  std::int64_t segment_size;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i * segment_size; }
};
}  // namespace
#endif

template <class OutT>
void cub_segmented_scan(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                        bool inclusive, Scratch& scratch, cudaStream_t stream) {
#if TCU_HAVE_CUB_SEGMENTED_SCAN
  if (num_segments == 0) return;
  const auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator<std::int64_t>(0),
                                                     SegmentBegin{segment_size});
  const auto end = begin + 1;  // segment i ends where i + 1 begins
  std::size_t bytes = 0;
  if (inclusive) {
    TCU_CUDA_CHECK(cub::DeviceSegmentedScan::InclusiveSegmentedScan(nullptr, bytes, in, out, begin, end, num_segments,
                                                                    ::cuda::std::plus<float>{}, stream));
    TCU_CUDA_CHECK(cub::DeviceSegmentedScan::InclusiveSegmentedScan(scratch.get(bytes), bytes, in, out, begin, end,
                                                                    num_segments, ::cuda::std::plus<float>{}, stream));
  } else {
    TCU_CUDA_CHECK(cub::DeviceSegmentedScan::ExclusiveSegmentedScan(nullptr, bytes, in, out, begin, end, num_segments,
                                                                    ::cuda::std::plus<float>{}, 0.0f, stream));
    TCU_CUDA_CHECK(cub::DeviceSegmentedScan::ExclusiveSegmentedScan(scratch.get(bytes), bytes, in, out, begin, end,
                                                                    num_segments, ::cuda::std::plus<float>{}, 0.0f,
                                                                    stream));
  }
  TCU_CHECK_LAUNCH();
#else
  (void)in, (void)out, (void)num_segments, (void)segment_size, (void)inclusive, (void)scratch, (void)stream;
  throw std::invalid_argument("cub_segmented_scan: needs CCCL 3.3 or newer (cub::DeviceSegmentedScan)");
#endif
}

template void cub_segmented_scan<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool, Scratch&,
                                         cudaStream_t);
template void cub_segmented_scan<float>(const __half*, float*, std::int64_t, std::int64_t, bool, Scratch&,
                                        cudaStream_t);

}  // namespace tcu::bench::scan
