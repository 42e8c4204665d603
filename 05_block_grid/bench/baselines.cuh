#pragma once
// The libraries the chapter is measured against, on the same types (fp16 in; fp32 accumulation
// and output unless the name says fp16): CUB's device-wide reduce and scans, CUB's
// scan-by-key for segmented scans, Thrust's equivalents. Temporary storage comes from the same
// private pool as the chapter's own (no allocation is timed). All return the launch error.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace tcu::bench::device {

cudaError_t cub_device_reduce(const __half* in, float* out, std::int64_t n, cudaStream_t stream);
cudaError_t thrust_reduce(const __half* in, float* out, std::int64_t n, cudaStream_t stream);
// fp16 → float: cub::DeviceScan::InclusiveScan / ExclusiveScan with plus<float>.
// fp16 → fp16: cub::DeviceScan::InclusiveSum / ExclusiveSum (fp16 accumulation, CUB's choice).
template <class OutT>
cudaError_t cub_device_scan(const __half* in, OutT* out, std::int64_t n, bool inclusive, cudaStream_t stream);
// fp16 → float, cub::DeviceScan::InclusiveScan with plus<float> under the run-to-run determinism
// requirement (CCCL 3.4 or newer: have_cub_deterministic_scan(); on sm_90 CUB's warp-specialised scan).
bool have_cub_deterministic_scan();
cudaError_t cub_device_scan_deterministic(const __half* in, float* out, std::int64_t n, cudaStream_t stream);
template <class OutT>
cudaError_t thrust_scan(const __half* in, OutT* out, std::int64_t n, bool inclusive, cudaStream_t stream);
// Segmented: keys = element index / segment_size.
cudaError_t cub_scan_by_key(const __half* in, float* out, std::int64_t num_segments, std::int64_t segment_size,
                            cudaStream_t stream);
cudaError_t thrust_scan_by_key(const __half* in, float* out, std::int64_t num_segments, std::int64_t segment_size,
                               cudaStream_t stream);

}  // namespace tcu::bench::device
