// Lesson 4 — segmented single-pass scan: the look-back of 06 with "head" flags. A tile that
// holds a segment start publishes its sum after the start as a prefix (P) at once, so a later
// tile's look-back stops there: the look-back never goes past the tile holding its segment's
// start, however many blocks the segment spans. Inside a tile, segment starts reset the row
// scans (A·U when segments are whole rows, else each lane's 8 elements) and the carries.
// The segmented reduction is the same walk writing only each segment's last prefix.
#include "05_block_grid/kernels/launchers.hpp"
#include "05_block_grid/kernels/lookback_launch.cuh"

namespace tcu::detail::device {

template <class OutT>
cudaError_t launch_segmented_scan_lookback(const __half* in, OutT* out, std::int64_t num_segments,
                                           std::int64_t segment_size, bool inclusive, cudaStream_t stream) {
  const std::int64_t n = num_segments * segment_size;
  return inclusive ? launch_lookback_scan<OutT, ScanOutput::inclusive, true>(in, out, n, segment_size, stream)
                   : launch_lookback_scan<OutT, ScanOutput::exclusive, true>(in, out, n, segment_size, stream);
}
template cudaError_t launch_segmented_scan_lookback<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool,
                                                            cudaStream_t);
template cudaError_t launch_segmented_scan_lookback<float>(const __half*, float*, std::int64_t, std::int64_t, bool,
                                                           cudaStream_t);

cudaError_t launch_segmented_reduce_lookback(const __half* in, float* out, std::int64_t num_segments,
                                             std::int64_t segment_size, cudaStream_t stream) {
  return launch_lookback_scan<float, ScanOutput::segment_sums, true>(in, out, num_segments * segment_size,
                                                                     segment_size, stream);
}

}  // namespace tcu::detail::device
