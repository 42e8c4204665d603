#pragma once
// The chapter's launchers, one per algorithm, each defined next to its kernel in
// kernels/NN_<algorithm>.cu (lesson order) and explicitly instantiated there, and which segment
// sizes each algorithm takes: what the API's dispatch table in tcu_scan.cu pairs. Only
// tcu_scan.cu includes it (host code, no device code).
//
//   cudaError_t launch_xxx<OutT>(d_in, d_out, num_segments, segment_size, inclusive, stream)
//
// A launcher may assume valid arguments (tcu_scan.cu checked them: num_segments >= 1, a
// segment size the algorithm takes, non-null aligned pointers), only enqueues, and returns the
// launch's error. Instantiated for OutT = __half and float.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/int_math.hpp"
#include "common/tensor_core/tile_geometry.hpp"

namespace tcu::detail::scan {

// ---- which segment sizes each algorithm takes ------------------------------------------------
constexpr bool any_segment_size(std::int64_t s) { return s >= 1; }
constexpr bool scan16_supports(std::int64_t s) { return s >= 1 && s <= tc::kTile; }
constexpr bool scan256_supports(std::int64_t s) { return s >= 1 && s <= tc::kTileElems; }
// Both pipelined variants: powers of two, 16 and more (whole 16-element rows per segment,
// whole segments per tile or whole tiles per segment).
constexpr bool scan256_pipelined_supports(std::int64_t s) { return s >= tc::kTile && is_pow2(s); }
// Segments of any size: 17 … 2^30 cut at their starts inside aligned tiles (segment offsets are
// 32-bit); 1 … 16 are passed to Scan16 (a segment per row).
inline constexpr std::int64_t kAnySizeMax = std::int64_t{1} << 30;
// One warp per share of whole segments (08_scan_any_size.cu, 09_scan_walk.cu), so long segments fill the GPU
// (SMs × 16 resident warps) only when there are thousands of them.
inline constexpr std::int64_t kAnySizeFewSegments = 4096;
constexpr bool scan_any_size_supports(std::int64_t s) { return s >= 1 && s <= kAnySizeMax; }

// ---- the launchers, in lesson order ----------------------------------------------------------
template <class OutT>
using Launcher = cudaError_t (*)(const __half*, OutT*, std::int64_t, std::int64_t, bool, cudaStream_t);

#define TCU_SCAN_LAUNCHER(name)                                                                                 \
  template <class OutT>                                                                                         \
  cudaError_t name(const __half* d_in, OutT* d_out, std::int64_t num_segments, std::int64_t segment_size, \
                   bool inclusive, cudaStream_t stream)

TCU_SCAN_LAUNCHER(launch_scan16);                  // 01_scan16.cu
TCU_SCAN_LAUNCHER(launch_scan256);                 // 02_scan256.cu
TCU_SCAN_LAUNCHER(launch_scan256n);                // 03_scan256n.cu
TCU_SCAN_LAUNCHER(launch_scan16n);                 // 04_scan16n.cu
TCU_SCAN_LAUNCHER(launch_scan256_block);           // 05_scan256_block.cu
TCU_SCAN_LAUNCHER(launch_matmulscan);              // 06_matmulscan.cu
TCU_SCAN_LAUNCHER(launch_scan256_pipelined);       // 07_scan256_pipelined.cu (tensor-core row carry)
TCU_SCAN_LAUNCHER(launch_scan256_pipelined_shfl);  // 07_scan256_pipelined.cu (shuffle row carry)
TCU_SCAN_LAUNCHER(launch_scan_any_size);           // 08_scan_any_size.cu
TCU_SCAN_LAUNCHER(launch_scan_walk);               // 09_scan_walk.cu (1 … 8: Scan16)

#undef TCU_SCAN_LAUNCHER

}  // namespace tcu::detail::scan
