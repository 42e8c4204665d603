#pragma once
// The library baselines the tensor-core scans are measured against, same types (fp16 in,
// fp32 accumulation, OutT out), same run:
//   thrust_scan_by_key  thrust::inclusive/exclusive_scan_by_key, keys i / segment_size from a
//                       transform of a counting iterator (no key array in memory)
//   cub_scan_by_key     cub::DeviceScan::InclusiveScanByKey / ExclusiveScanByKey, same keys
//   cub_warp_scan       our kernel: one warp per group of segments, 8 items per lane,
//                       cub::WarpScan with a segmented (key, value) operator
//   cub_block_scan      the same with cub::BlockScan, 256 threads × 8 items per block
//   cub_segmented_scan  cub::DeviceSegmentedScan::Inclusive/ExclusiveSegmentedScan, plus<float>,
//                       offsets i · segment_size from a counting iterator (CCCL 3.3 or newer)
//   cub_device_scan     the whole array only (one segment): cub::DeviceScan::InclusiveScan /
//                       ExclusiveScan with plus<float> for fp32 out, InclusiveSum / ExclusiveSum
//                       (fp16 accumulation) for fp16 out
// Which exist depends on the CCCL of the build (the toolkit's, or TCU_CCCL_ROOT).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/device_buffer.cuh"

namespace tcu::bench::scan {

// Temporary storage that grows on demand (CUB's two-phase API).
class Scratch {
 public:
  void* get(std::size_t bytes) {
    if (bytes > buf_.size()) buf_ = DeviceBuffer<unsigned char>(bytes);
    return buf_.data();
  }

 private:
  DeviceBuffer<unsigned char> buf_;
};

template <class OutT>
void thrust_scan_by_key(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                        bool inclusive, cudaStream_t stream);
template <class OutT>
void cub_scan_by_key(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                     bool inclusive, Scratch& scratch, cudaStream_t stream);
template <class OutT>
void cub_warp_scan(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                   bool inclusive, cudaStream_t stream);
template <class OutT>
void cub_block_scan(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                    bool inclusive, cudaStream_t stream);

template <class OutT>
void cub_segmented_scan(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                        bool inclusive, Scratch& scratch, cudaStream_t stream);
bool cub_segmented_scan_available();  // built against CCCL 3.3 or newer
// num_segments must be 1 (else std::invalid_argument).
template <class OutT>
void cub_device_scan(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                     bool inclusive, Scratch& scratch, cudaStream_t stream);

// Functors shared by the two by-key baselines.
struct SegmentKey {
  std::int64_t segment_size;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i / segment_size; }
};
struct HalfToFloat {
  __host__ __device__ float operator()(__half h) const { return __half2float(h); }
};

}  // namespace tcu::bench::scan
