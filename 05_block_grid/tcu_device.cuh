#pragma once
// Chapter 05's public API: device-wide sums and prefix sums of fp16 data on tensor cores, named
// like CUB's device-wide functions so that a CUB user recognises them.
//
//   #include "05_block_grid/tcu_device.cuh"        // link the CMake target tcu_device
//   tcu::DeviceReduce::Sum(d_in, d_sum, n, stream);                      // float d_sum[1]
//   tcu::DeviceScan::InclusiveSum(d_in, d_out, n, stream);               // d_out: float or __half
//   tcu::DeviceScan::ExclusiveSum(d_in, d_out, n, stream);
//   tcu::DeviceSegmentedReduce::Sum(d_in, d_sums, num_segments, segment_size, stream);
//   tcu::DeviceSegmentedScan::InclusiveSum(d_in, d_out, num_segments, segment_size, stream);
//   tcu::DeviceSegmentedScan::ExclusiveSum(d_in, d_out, num_segments, segment_size, stream);
//   // ragged segments, CUB's offsets (OffsetT = std::int32_t or std::int64_t, device arrays):
//   tcu::DeviceSegmentedReduce::Sum(d_in, d_sums, num_segments, d_begin_offsets, d_end_offsets, stream);
//   tcu::DeviceSegmentedScan::InclusiveSum(d_in, d_out, num_segments, d_begin_offsets, d_end_offsets, stream);
//   tcu::DeviceSegmentedScan::ExclusiveSum(d_in, d_out, num_segments, d_begin_offsets, d_end_offsets, stream);
//
// Contract:
//   - fp16 input, fp32 accumulation; outputs float (reductions; scans: float or __half);
//   - asynchronous and stream-ordered; launch errors are returned, errors while the kernels run
//     surface at the next synchronising call;
//   - any element-aligned device pointers (unaligned vectors are loaded element by element);
//   - std::int64_t sizes, n >= 2^31 included; zero elements (n = 0, num_segments = 0): success,
//     nothing launched, nothing written;
//   - invalid arguments → cudaErrorInvalidValue, nothing launched: negative sizes, segment_size
//     0 with segments to do, num_segments × segment_size overflowing int64, null pointers with
//     work to do, pointers not aligned to their element type, an explicit algorithm that cannot
//     take the shape (device_algorithm_supports);
//   - deterministic: the same input gives the same bits, run after run (the single-pass scan's
//     look-back adds its carries in fixed point, see common/tensor_core/lookback.cuh);
//   - fp16 outputs round each prefix once; a prefix above 65504 in magnitude does not fit in
//     fp16 and becomes ±inf (use float outputs for long sums);
//   - offsets (CUB's meaning): segment s is [d_begin_offsets[s], d_end_offsets[s]), empty when
//     end <= begin (a reduction writes 0, a scan nothing); the offsets are device arrays read by
//     the kernels, never copied to the host; offsets are valid element indices (>= 0). Scans
//     leave the elements between segments untouched and need segments that do not overlap;
//     reductions also take overlapping and unordered segments. Ordered segments (each starting
//     at or after the previous one's end, as CSR row pointers (p, p + 1) are) take the fast
//     path, which reads the whole range from the first segment's start to the last one's end
//     (gaps included, their values ignored); others a warp per segment (correct, slower). Null
//     offset pointers with segments to do, or offsets not aligned to OffsetT: invalid;
//   - temporary device memory (a few words per 16384-element block tile) is taken stream-
//     ordered from a memory pool private to the library that keeps it between calls; an
//     allocation failure is returned as cudaErrorMemoryAllocation. The pool and the kernels'
//     launch settings are kept per device for the process: no cudaDeviceReset between calls.
// The segmented functions pick warp level (chapters 03/04, when built), block level or grid
// level by segment size, from the crossovers of the chapter's sweep (choose_device_*_algorithm).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tcu {

// ---- the algorithms (docs/algorithms.md#block-and-grid-level) ------------------------------
enum class DeviceReduceAlgorithm {
  automatic,           // chosen by shape
  block_reduce,        // Dakkak Alg. 4: one block per segment
  grid_two_pass,       // Dakkak's grid level: block partials of chunks, then a second kernel
  grid_single_pass,    // one launch: the last block sums the partials in a fixed order (one segment)
  segmented_lookback,  // the segmented single-pass scan writing each segment's last prefix
  ragged,              // lesson 5: the ragged-segment kernels with offsets s·segment_size
  warp_level,          // chapter 03's segmented_reduce_sum (when built with chapter 03)
};
enum class DeviceScanAlgorithm {
  automatic,           // chosen by shape
  block_scan,          // Dakkak Alg. 7: one block per segment, block tiles with a running carry
  grid_three_kernel,   // Dakkak's grid level: tile totals, scan of totals, add-back (one segment)
  grid_lookback,       // single pass, decoupled look-back (one segment)
  grid_warp_specialised,  // 3c: a load warp, a look-back warp (sm_90, aligned input; else grid_lookback)
  segmented_lookback,  // single pass, the look-back stops at the segment's start
  ragged,              // lesson 5: the ragged-segment kernels with offsets s·segment_size
  warp_level,          // chapter 04's segmented scans (when built with chapter 04)
};

// Every algorithm but `automatic`, in lesson order (warp_level only when it is built in).
std::vector<DeviceReduceAlgorithm> all_device_reduce_algorithms();
std::vector<DeviceScanAlgorithm> all_device_scan_algorithms();
const char* device_reduce_algorithm_name(DeviceReduceAlgorithm a);  // "grid_two_pass", ... ("auto")
const char* device_scan_algorithm_name(DeviceScanAlgorithm a);
const char* device_reduce_algorithm_description(DeviceReduceAlgorithm a);
const char* device_scan_algorithm_description(DeviceScanAlgorithm a);
std::optional<DeviceReduceAlgorithm> parse_device_reduce_algorithm(const std::string& name);
std::optional<DeviceScanAlgorithm> parse_device_scan_algorithm(const std::string& name);
// Whether the algorithm takes num_segments × segment_size (the grid_* ones: one segment only).
bool device_reduce_algorithm_supports(DeviceReduceAlgorithm a, std::int64_t num_segments, std::int64_t segment_size);
bool device_scan_algorithm_supports(DeviceScanAlgorithm a, std::int64_t num_segments, std::int64_t segment_size);
// What `automatic` runs (never automatic itself).
DeviceReduceAlgorithm choose_device_reduce_algorithm(std::int64_t num_segments, std::int64_t segment_size);
DeviceScanAlgorithm choose_device_scan_algorithm(std::int64_t num_segments, std::int64_t segment_size,
                                                 bool fp32_output);
// Whether chapters 03/04 (warp level) are built into this library.
bool device_has_warp_level();

// ---- explicit algorithm (the algorithm first, then the CUB-like arguments) -----------------
cudaError_t device_reduce_sum(DeviceReduceAlgorithm algorithm, const __half* d_in, float* d_out,
                              std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream = 0);
template <class OutT>
cudaError_t device_inclusive_scan_sum(DeviceScanAlgorithm algorithm, const __half* d_in, OutT* d_out,
                                      std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream = 0);
template <class OutT>
cudaError_t device_exclusive_scan_sum(DeviceScanAlgorithm algorithm, const __half* d_in, OutT* d_out,
                                      std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream = 0);

// How far DeviceReduce::Sum over n elements (and DeviceSegmentedReduce::Sum, per segment of n)
// may be from the exact sum: rel_to_abs_sum · Σ|x|. `depth` is the longest chain of fp32
// roundings on the way, each charged 2u = 2^-23: the MMA accumulator of a warp's tiles (log2 n)
// plus the 16 columns, the warp, block and final levels and the hi/lo splits (8).
struct DeviceReduceErrorBound {
  double rel_to_abs_sum = 0;
  int depth = 0;
  std::string rationale;
};
DeviceReduceErrorBound device_reduce_error_bound(std::int64_t n);

// ---- the CUB-like device-wide API -----------------------------------------------------------
struct DeviceReduce {
  // *d_out = Σ d_in[0 … n).
  static cudaError_t Sum(const __half* d_in, float* d_out, std::int64_t n, cudaStream_t stream = 0);
};
struct DeviceScan {
  // d_out[i] = Σ d_in[0 … i]  (OutT = __half or float)
  template <class OutT>
  static cudaError_t InclusiveSum(const __half* d_in, OutT* d_out, std::int64_t n, cudaStream_t stream = 0);
  // d_out[i] = Σ d_in[0 … i), d_out[0] = 0
  template <class OutT>
  static cudaError_t ExclusiveSum(const __half* d_in, OutT* d_out, std::int64_t n, cudaStream_t stream = 0);
};
struct DeviceSegmentedReduce {
  // d_out[s] = Σ d_in[s·segment_size … (s+1)·segment_size), s < num_segments.
  static cudaError_t Sum(const __half* d_in, float* d_out, std::int64_t num_segments, std::int64_t segment_size,
                         cudaStream_t stream = 0);
  // d_out[s] = Σ d_in[d_begin_offsets[s] … d_end_offsets[s]) (0 when empty), s < num_segments.
  template <class OffsetT>  // std::int32_t or std::int64_t
  static cudaError_t Sum(const __half* d_in, float* d_out, std::int64_t num_segments, const OffsetT* d_begin_offsets,
                         const OffsetT* d_end_offsets, cudaStream_t stream = 0);
};
struct DeviceSegmentedScan {
  template <class OutT>
  static cudaError_t InclusiveSum(const __half* d_in, OutT* d_out, std::int64_t num_segments,
                                  std::int64_t segment_size, cudaStream_t stream = 0);
  template <class OutT>
  static cudaError_t ExclusiveSum(const __half* d_in, OutT* d_out, std::int64_t num_segments,
                                  std::int64_t segment_size, cudaStream_t stream = 0);
  // Ragged: the prefix sums of each segment [d_begin_offsets[s], d_end_offsets[s]) (segments
  // must not overlap); elements outside every segment are not written.
  template <class OutT, class OffsetT>  // OutT = float or __half; OffsetT = std::int32_t or std::int64_t
  static cudaError_t InclusiveSum(const __half* d_in, OutT* d_out, std::int64_t num_segments,
                                  const OffsetT* d_begin_offsets, const OffsetT* d_end_offsets,
                                  cudaStream_t stream = 0);
  template <class OutT, class OffsetT>
  static cudaError_t ExclusiveSum(const __half* d_in, OutT* d_out, std::int64_t num_segments,
                                  const OffsetT* d_begin_offsets, const OffsetT* d_end_offsets,
                                  cudaStream_t stream = 0);
};

}  // namespace tcu
