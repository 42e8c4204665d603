// Baseline for the whole array (one segment): cub::DeviceScan, the library's device-wide scan.
//   fp16 → fp32: InclusiveScan / ExclusiveScan with plus<float> (fp32 accumulation)
//   fp16 → fp16: InclusiveSum / ExclusiveSum (CUB accumulates in the input type, fp16)
#include <cub/device/device_scan.cuh>

#include <cuda/std/functional>

#include <stdexcept>
#include <type_traits>

#include "04_tcu_scan/bench/baselines.cuh"
#include "common/check.cuh"

namespace tcu::bench::scan {

template <class OutT>
void cub_device_scan(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                     bool inclusive, Scratch& scratch, cudaStream_t stream) {
  if (num_segments == 0) return;
  if (num_segments != 1) throw std::invalid_argument("cub_device_scan: one segment (the whole array) only");
  const std::int64_t n = segment_size;
  std::size_t bytes = 0;
  if constexpr (std::is_same_v<OutT, float>) {
    if (inclusive) {
      TCU_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, in, out, ::cuda::std::plus<float>{}, n, stream));
      TCU_CUDA_CHECK(
          cub::DeviceScan::InclusiveScan(scratch.get(bytes), bytes, in, out, ::cuda::std::plus<float>{}, n, stream));
    } else {
      TCU_CUDA_CHECK(
          cub::DeviceScan::ExclusiveScan(nullptr, bytes, in, out, ::cuda::std::plus<float>{}, 0.0f, n, stream));
      TCU_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(scratch.get(bytes), bytes, in, out, ::cuda::std::plus<float>{},
                                                    0.0f, n, stream));
    }
  } else {
    if (inclusive) {
      TCU_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n, stream));
      TCU_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scratch.get(bytes), bytes, in, out, n, stream));
    } else {
      TCU_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, stream));
      TCU_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.get(bytes), bytes, in, out, n, stream));
    }
  }
  TCU_CHECK_LAUNCH();
}

template void cub_device_scan<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool, Scratch&,
                                      cudaStream_t);
template void cub_device_scan<float>(const __half*, float*, std::int64_t, std::int64_t, bool, Scratch&,
                                     cudaStream_t);

}  // namespace tcu::bench::scan
