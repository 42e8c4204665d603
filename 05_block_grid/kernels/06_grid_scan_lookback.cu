// Lesson 3b — the single-pass scan: decoupled look-back between blocks (lookback.cuh), Alg. 7
// inside each block on tensor cores. About 2n of memory traffic, like a copy.
#include "05_block_grid/kernels/launchers.hpp"
#include "05_block_grid/kernels/lookback_launch.cuh"

namespace tcu::detail::device {

template <class OutT>
cudaError_t launch_grid_scan_lookback(const __half* in, OutT* out, std::int64_t n, bool inclusive,
                                      cudaStream_t stream) {
  return inclusive ? launch_lookback_scan<OutT, ScanOutput::inclusive, false>(in, out, n, n, stream)
                   : launch_lookback_scan<OutT, ScanOutput::exclusive, false>(in, out, n, n, stream);
}
template cudaError_t launch_grid_scan_lookback<__half>(const __half*, __half*, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_grid_scan_lookback<float>(const __half*, float*, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::device
