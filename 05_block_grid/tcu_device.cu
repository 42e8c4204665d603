// Chapter 05's API: argument checks, the automatic choice, the name tables and the dispatch.
// The kernels and their launchers are in kernels/ (one file per algorithm, in lesson order).
#include "05_block_grid/tcu_device.cuh"

#include <cstdint>
#include <string>

#include "05_block_grid/kernels/launchers.hpp"
#include "05_block_grid/kernels/ragged_launchers.hpp"
#include "common/kernel_image.cuh"
#include "common/name_table.hpp"
#include "common/segments.hpp"
#include "common/tensor_core/launch.hpp"
#if TCU_DEVICE_WARP_LEVEL
#include "03_tcu_reduction/tcu_reduction.cuh"
#include "04_tcu_scan/tcu_scan.cuh"
#endif

namespace tcu {
namespace {

namespace dev = tcu::detail::device;
namespace tc = tcu::tc;

// The name tables: the only place the names are written. (The dispatch is a switch, not a
// table: the grid-level launchers take one segment and no segment count.)
constexpr NamedAlgorithm<DeviceReduceAlgorithm> kReduceTable[] = {
    {DeviceReduceAlgorithm::automatic, "auto", "the API's choice by shape"},
    {DeviceReduceAlgorithm::block_reduce, "block_reduce", "Dakkak Alg. 4: one block per segment"},
    {DeviceReduceAlgorithm::grid_two_pass, "grid_two_pass", "block partials of chunks, then a second kernel"},
    {DeviceReduceAlgorithm::grid_single_pass, "grid_single_pass",
     "one launch, the last block sums the partials (one segment)"},
    {DeviceReduceAlgorithm::segmented_lookback, "segmented_lookback",
     "segmented single-pass scan writing each segment's last prefix"},
    {DeviceReduceAlgorithm::ragged, "ragged", "lesson 5's ragged-segment kernels, offsets s*segment_size"},
    {DeviceReduceAlgorithm::warp_level, "warp_level", "chapter 03's warp-level segmented_reduce_sum"},
};
constexpr NamedAlgorithm<DeviceScanAlgorithm> kScanTable[] = {
    {DeviceScanAlgorithm::automatic, "auto", "the API's choice by shape"},
    {DeviceScanAlgorithm::block_scan, "block_scan", "Dakkak Alg. 7: one block per segment"},
    {DeviceScanAlgorithm::grid_three_kernel, "grid_three_kernel",
     "tile totals, scan of totals, add-back (one segment)"},
    {DeviceScanAlgorithm::grid_lookback, "grid_lookback", "single pass, decoupled look-back (one segment)"},
    {DeviceScanAlgorithm::grid_warp_specialised, "grid_warp_specialised",
     "the look-back with a load warp and a look-back warp, tiles in registers (Hopper; else grid_lookback)"},
    {DeviceScanAlgorithm::segmented_lookback, "segmented_lookback",
     "single pass, look-back stops at the segment's start"},
    {DeviceScanAlgorithm::ragged, "ragged", "lesson 5's ragged-segment kernels, offsets s*segment_size"},
    {DeviceScanAlgorithm::warp_level, "warp_level", "chapter 04's warp-level segmented scans"},
};
static_assert(names_in_enum_order(kReduceTable) &&
              static_cast<std::size_t>(DeviceReduceAlgorithm::warp_level) + 1 == std::size(kReduceTable));
static_assert(names_in_enum_order(kScanTable) &&
              static_cast<std::size_t>(DeviceScanAlgorithm::warp_level) + 1 == std::size(kScanTable));

constexpr bool kWarpLevel = TCU_DEVICE_WARP_LEVEL != 0;

// Crossovers (segment sizes) from the chapter's sweep: below them the warp level of chapters
// 03/04 is faster (and without it the segmented look-back takes them).
constexpr std::int64_t kReduceBlockFrom = 4096;
constexpr std::int64_t kScanBlockFrom = 2048;
// From 1.5 segments per SM on, one block per segment beats the segmented look-back (the sweep
// at n = 2^28; with fewer segments than SMs it falls far behind).
std::int64_t block_scan_min_segments() { return (3 * static_cast<std::int64_t>(tc::sm_count()) + 1) / 2; }
// Whole arrays up to these sizes are faster on one block (the sweep: n = 2^10 … 2^14 for the
// scan, one block tile, where the look-back only adds its status words; up to 2^15 for the sum).
// Past them the sweep's fastest single-pass scan is lesson 3c's (2^15 … 2^28 on the H100).
constexpr std::int64_t kScanOneBlockUpTo = std::int64_t(1) << 14;
constexpr std::int64_t kReduceOneBlockUpTo = std::int64_t(1) << 15;
// From 2^23 on the whole-array sum takes lesson 2a (chunks in waves, its second pass a dependent
// launch); below, lesson 2b's one launch (the sweeps on the H100: two launches ahead from 2^23 in
// every process, level or behind below).
constexpr std::int64_t kReduceTwoPassFrom = std::int64_t(1) << 23;
// Segments of "odd" sizes take lessons 5 and 6's ragged walk, which reads whole aligned tiles
// whatever the segment boundaries: sizes not a multiple of 8 (rows that are not whole 16-byte
// vectors: element-wise loads at every level) and, below the warp level's own fast range, the
// other sizes that are not powers of two (the odd-size runs at n = 2^28, 17 … 12345: the walk
// ahead everywhere but the reduction's 1000, a multiple of 8 from 512 on). Above 16 only: the
// shortest segments stay one tile each.
bool odd_size_for_walk(std::int64_t s, std::int64_t not_power_of_two_below) {
  const bool power_of_two = (s & (s - 1)) == 0;
  return s > 16 && (s % 8 != 0 || (s < not_power_of_two_below && !power_of_two));
}
// Whether chapters 03/04 take their own walk on CUDA cores for this shape (the same aligned
// slices, the segments' positions known from s alone, no offsets to read): their own choice
// decides. It beats the ragged walk there (fixed odd sizes 17 … 12345, n = 2^28 on the H100:
// sums 87-95 % and scans 95-97 % of the limit, against 77-90 % and 87-90 %).
bool warp_walk_reduce(std::int64_t ns, std::int64_t s) {
#if TCU_DEVICE_WARP_LEVEL
  return choose_reduce_algorithm(ns, s) == ReduceAlgorithm::reduction_walk;
#else
  static_cast<void>(ns), static_cast<void>(s);
  return false;  // no warp level in this build
#endif
}
bool warp_walk_scan(std::int64_t ns, std::int64_t s, bool fp32_output) {
#if TCU_DEVICE_WARP_LEVEL
  return choose_scan_algorithm(ns, s, fp32_output) == ScanAlgorithm::scan_walk;
#else
  static_cast<void>(ns), static_cast<void>(s), static_cast<void>(fp32_output);
  return false;  // no warp level in this build
#endif
}

// Lesson 3c runs where its input is on a 16-byte boundary and the image its kernel runs on this
// GPU was compiled for compute_90 or newer (not compute_80 PTX JIT-compiled on an H100, whose body
// is empty: common/kernel_image.cuh).
bool warp_specialised_scan_runs_here(const void* in) {
  if (reinterpret_cast<std::uintptr_t>(in) % 16 != 0) return false;
  if (require_kernel_image(dev::warp_specialised_scan_kernel(), 90) == cudaSuccess) return true;
  cudaGetLastError();  // not sticky: no image at all reads as "does not run here"
  return false;
}

template <class T>
bool element_aligned(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0;
}

// The shared argument rules plus element alignment. `nothing` = success with no work.
cudaError_t check(const void* in, const void* out, bool out_aligned, std::int64_t ns, std::int64_t s, bool& nothing) {
  const SegmentCheck c = check_segments(in, out, ns, s);
  nothing = c.nothing_to_do;
  if (c.status != cudaSuccess) return c.status;
  if (nothing) return cudaSuccess;
  if (!element_aligned(static_cast<const __half*>(in)) || !out_aligned) return cudaErrorInvalidValue;
  return cudaSuccess;
}

template <class OutT>
cudaError_t scan_dispatch(DeviceScanAlgorithm a, bool inclusive, const __half* in, OutT* out, std::int64_t ns,
                          std::int64_t s, cudaStream_t stream) {
  bool nothing = false;
  if (cudaError_t e = check(in, out, element_aligned(out), ns, s, nothing); e != cudaSuccess || nothing) return e;
  if (a == DeviceScanAlgorithm::automatic) a = choose_device_scan_algorithm(ns, s, sizeof(OutT) == 4);
  if (!device_scan_algorithm_supports(a, ns, s)) return cudaErrorInvalidValue;
  switch (a) {
    case DeviceScanAlgorithm::block_scan: return dev::launch_block_scan(in, out, ns, s, inclusive, stream);
    case DeviceScanAlgorithm::grid_three_kernel: return dev::launch_grid_scan_three_kernel(in, out, s, inclusive, stream);
    case DeviceScanAlgorithm::grid_lookback: return dev::launch_grid_scan_lookback(in, out, s, inclusive, stream);
    case DeviceScanAlgorithm::grid_warp_specialised:  // aligned input, sm_90 code, a GPU that runs it; else 3b
      return warp_specialised_scan_runs_here(in)
                 ? dev::launch_grid_scan_warp_specialised(in, out, s, inclusive, stream)
                 : dev::launch_grid_scan_lookback(in, out, s, inclusive, stream);
    case DeviceScanAlgorithm::segmented_lookback:
      return dev::launch_segmented_scan_lookback(in, out, ns, s, inclusive, stream);
    case DeviceScanAlgorithm::ragged: return dev::launch_ragged_scan_fixed(in, out, ns, s, inclusive, stream);
    case DeviceScanAlgorithm::warp_level:
#if TCU_DEVICE_WARP_LEVEL
      return inclusive ? segmented_inclusive_scan_sum(in, out, ns, s, stream)
                       : segmented_exclusive_scan_sum(in, out, ns, s, stream);
#else
      return cudaErrorInvalidValue;
#endif
    default: return cudaErrorInvalidValue;
  }
}

// The argument rules of the offset overloads: negative num_segments; null pointers or pointers not
// aligned to their element type with segments to do. `nothing`: zero segments, success.
template <class OutT, class OffsetT>
cudaError_t check_ragged(const __half* in, const OutT* out, std::int64_t ns, const OffsetT* begin, const OffsetT* end,
                         bool& nothing) {
  nothing = ns == 0;
  if (ns < 0) return cudaErrorInvalidValue;
  if (nothing) return cudaSuccess;
  if (!in || !out || !begin || !end) return cudaErrorInvalidValue;
  if (!element_aligned(in) || !element_aligned(out) || !element_aligned(begin) || !element_aligned(end))
    return cudaErrorInvalidValue;
  return cudaSuccess;
}

template <class OutT, class OffsetT>
cudaError_t ragged_scan(bool inclusive, const __half* in, OutT* out, std::int64_t ns, const OffsetT* begin,
                        const OffsetT* end, cudaStream_t stream) {
  bool nothing = false;
  if (cudaError_t e = check_ragged(in, out, ns, begin, end, nothing); e != cudaSuccess || nothing) return e;
  return dev::launch_ragged_scan(in, out, ns, begin, end, inclusive, stream);
}

}  // namespace

bool device_has_warp_level() { return kWarpLevel; }

std::vector<DeviceReduceAlgorithm> all_device_reduce_algorithms() {
  std::vector<DeviceReduceAlgorithm> v = algorithms_but(kReduceTable, DeviceReduceAlgorithm::automatic);
  if (!kWarpLevel) v.pop_back();  // warp_level, the last row
  return v;
}
std::vector<DeviceScanAlgorithm> all_device_scan_algorithms() {
  std::vector<DeviceScanAlgorithm> v = algorithms_but(kScanTable, DeviceScanAlgorithm::automatic);
  if (!kWarpLevel) v.pop_back();  // warp_level, the last row
  return v;
}
const char* device_reduce_algorithm_name(DeviceReduceAlgorithm a) { return algorithm_name(kReduceTable, a); }
const char* device_scan_algorithm_name(DeviceScanAlgorithm a) { return algorithm_name(kScanTable, a); }
const char* device_reduce_algorithm_description(DeviceReduceAlgorithm a) {
  return algorithm_description(kReduceTable, a);
}
const char* device_scan_algorithm_description(DeviceScanAlgorithm a) { return algorithm_description(kScanTable, a); }
std::optional<DeviceReduceAlgorithm> parse_device_reduce_algorithm(const std::string& name) {
  return parse_algorithm(kReduceTable, name);
}
std::optional<DeviceScanAlgorithm> parse_device_scan_algorithm(const std::string& name) {
  return parse_algorithm(kScanTable, name);
}

bool device_reduce_algorithm_supports(DeviceReduceAlgorithm a, std::int64_t num_segments, std::int64_t segment_size) {
  if (segment_size < 1 || num_segments < 0) return false;
  switch (a) {
    case DeviceReduceAlgorithm::grid_single_pass: return num_segments <= 1;
    case DeviceReduceAlgorithm::warp_level: return kWarpLevel;
    default: return true;
  }
}
bool device_scan_algorithm_supports(DeviceScanAlgorithm a, std::int64_t num_segments, std::int64_t segment_size) {
  if (segment_size < 1 || num_segments < 0) return false;
  switch (a) {
    case DeviceScanAlgorithm::grid_three_kernel:
    case DeviceScanAlgorithm::grid_lookback:
    case DeviceScanAlgorithm::grid_warp_specialised: return num_segments <= 1;
    case DeviceScanAlgorithm::warp_level: return kWarpLevel;
    default: return true;
  }
}

DeviceReduceAlgorithm choose_device_reduce_algorithm(std::int64_t num_segments, std::int64_t segment_size) {
  if (num_segments <= 1)
    return segment_size <= kReduceOneBlockUpTo  ? DeviceReduceAlgorithm::block_reduce
           : segment_size < kReduceTwoPassFrom ? DeviceReduceAlgorithm::grid_single_pass
                                                : DeviceReduceAlgorithm::grid_two_pass;
  if (odd_size_for_walk(segment_size, 512))
    return warp_walk_reduce(num_segments, segment_size) ? DeviceReduceAlgorithm::warp_level
                                                         : DeviceReduceAlgorithm::ragged;
  if (segment_size >= kReduceBlockFrom) return DeviceReduceAlgorithm::grid_two_pass;  // block level when segments fill the GPU
  return kWarpLevel ? DeviceReduceAlgorithm::warp_level : DeviceReduceAlgorithm::segmented_lookback;
}
DeviceScanAlgorithm choose_device_scan_algorithm(std::int64_t num_segments, std::int64_t segment_size,
                                                 bool fp32_output) {
  if (num_segments <= 1)  // past one block tile: lesson 3c where it runs (its dispatch falls back to 3b)
    return segment_size <= kScanOneBlockUpTo ? DeviceScanAlgorithm::block_scan
                                             : DeviceScanAlgorithm::grid_warp_specialised;
  if (warp_walk_scan(num_segments, segment_size, fp32_output)) return DeviceScanAlgorithm::warp_level;
  if (fp32_output && odd_size_for_walk(segment_size, kScanBlockFrom)) return DeviceScanAlgorithm::ragged;
  if (segment_size < kScanBlockFrom && kWarpLevel) return DeviceScanAlgorithm::warp_level;
  // Enough segments to keep every SM busy for several waves: a block per segment, no look-back.
  if (segment_size >= kScanBlockFrom && num_segments >= block_scan_min_segments())
    return DeviceScanAlgorithm::block_scan;
  return DeviceScanAlgorithm::segmented_lookback;
}

DeviceReduceErrorBound device_reduce_error_bound(std::int64_t n) {
  DeviceReduceErrorBound b;
  int log2_n = 0;  // ceil(log2 n)
  while (log2_n < 62 && (std::int64_t(1) << log2_n) < n) ++log2_n;
  if ((std::int64_t(1) << log2_n) < n) log2_n = 63;
  b.depth = log2_n + 8;
  b.rel_to_abs_sum = 2.0 * b.depth * 0x1p-24;
  b.rationale = "depth " + std::to_string(b.depth) + ": log2 n in a warp's accumulator, 8 for the columns, the "
                "warp, block and final levels and the hi/lo splits; 2u each";
  return b;
}

cudaError_t device_reduce_sum(DeviceReduceAlgorithm a, const __half* in, float* out, std::int64_t ns, std::int64_t s,
                              cudaStream_t stream) {
  bool nothing = false;
  if (cudaError_t e = check(in, out, element_aligned(out), ns, s, nothing); e != cudaSuccess || nothing) return e;
  if (a == DeviceReduceAlgorithm::automatic) a = choose_device_reduce_algorithm(ns, s);
  if (!device_reduce_algorithm_supports(a, ns, s)) return cudaErrorInvalidValue;
  switch (a) {
    case DeviceReduceAlgorithm::block_reduce: return dev::launch_block_reduce(in, out, ns, s, stream);
    case DeviceReduceAlgorithm::grid_two_pass: return dev::launch_grid_reduce_two_pass(in, out, ns, s, stream);
    case DeviceReduceAlgorithm::grid_single_pass: return dev::launch_grid_reduce_single_pass(in, out, s, stream);
    case DeviceReduceAlgorithm::segmented_lookback: return dev::launch_segmented_reduce_lookback(in, out, ns, s, stream);
    case DeviceReduceAlgorithm::ragged: return dev::launch_ragged_reduce_fixed(in, out, ns, s, stream);
    case DeviceReduceAlgorithm::warp_level:
#if TCU_DEVICE_WARP_LEVEL
      return segmented_reduce_sum(in, out, ns, s, stream);
#else
      return cudaErrorInvalidValue;
#endif
    default: return cudaErrorInvalidValue;
  }
}

template <class OutT>
cudaError_t device_inclusive_scan_sum(DeviceScanAlgorithm a, const __half* in, OutT* out, std::int64_t ns,
                                      std::int64_t s, cudaStream_t stream) {
  return scan_dispatch(a, true, in, out, ns, s, stream);
}
template <class OutT>
cudaError_t device_exclusive_scan_sum(DeviceScanAlgorithm a, const __half* in, OutT* out, std::int64_t ns,
                                      std::int64_t s, cudaStream_t stream) {
  return scan_dispatch(a, false, in, out, ns, s, stream);
}

// A whole array of n elements is one segment of n (n = 0: zero segments, nothing to do).
cudaError_t DeviceReduce::Sum(const __half* in, float* out, std::int64_t n, cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  return device_reduce_sum(DeviceReduceAlgorithm::automatic, in, out, n > 0 ? 1 : 0, n, stream);
}
template <class OutT>
cudaError_t DeviceScan::InclusiveSum(const __half* in, OutT* out, std::int64_t n, cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  return device_inclusive_scan_sum(DeviceScanAlgorithm::automatic, in, out, n > 0 ? 1 : 0, n, stream);
}
template <class OutT>
cudaError_t DeviceScan::ExclusiveSum(const __half* in, OutT* out, std::int64_t n, cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  return device_exclusive_scan_sum(DeviceScanAlgorithm::automatic, in, out, n > 0 ? 1 : 0, n, stream);
}
cudaError_t DeviceSegmentedReduce::Sum(const __half* in, float* out, std::int64_t ns, std::int64_t s,
                                       cudaStream_t stream) {
  return device_reduce_sum(DeviceReduceAlgorithm::automatic, in, out, ns, s, stream);
}
template <class OutT>
cudaError_t DeviceSegmentedScan::InclusiveSum(const __half* in, OutT* out, std::int64_t ns, std::int64_t s,
                                              cudaStream_t stream) {
  return device_inclusive_scan_sum(DeviceScanAlgorithm::automatic, in, out, ns, s, stream);
}
template <class OutT>
cudaError_t DeviceSegmentedScan::ExclusiveSum(const __half* in, OutT* out, std::int64_t ns, std::int64_t s,
                                              cudaStream_t stream) {
  return device_exclusive_scan_sum(DeviceScanAlgorithm::automatic, in, out, ns, s, stream);
}

template <class OffsetT>
cudaError_t DeviceSegmentedReduce::Sum(const __half* in, float* out, std::int64_t ns, const OffsetT* begin,
                                       const OffsetT* end, cudaStream_t stream) {
  bool nothing = false;
  if (cudaError_t e = check_ragged(in, out, ns, begin, end, nothing); e != cudaSuccess || nothing) return e;
  return dev::launch_ragged_reduce(in, out, ns, begin, end, stream);
}
template <class OutT, class OffsetT>
cudaError_t DeviceSegmentedScan::InclusiveSum(const __half* in, OutT* out, std::int64_t ns, const OffsetT* begin,
                                              const OffsetT* end, cudaStream_t stream) {
  return ragged_scan(true, in, out, ns, begin, end, stream);
}
template <class OutT, class OffsetT>
cudaError_t DeviceSegmentedScan::ExclusiveSum(const __half* in, OutT* out, std::int64_t ns, const OffsetT* begin,
                                              const OffsetT* end, cudaStream_t stream) {
  return ragged_scan(false, in, out, ns, begin, end, stream);
}

#define TCU_INSTANTIATE(OutT)                                                                                      \
  template cudaError_t device_inclusive_scan_sum<OutT>(DeviceScanAlgorithm, const __half*, OutT*, std::int64_t,    \
                                                       std::int64_t, cudaStream_t);                                \
  template cudaError_t device_exclusive_scan_sum<OutT>(DeviceScanAlgorithm, const __half*, OutT*, std::int64_t,    \
                                                       std::int64_t, cudaStream_t);                                \
  template cudaError_t DeviceScan::InclusiveSum<OutT>(const __half*, OutT*, std::int64_t, cudaStream_t);           \
  template cudaError_t DeviceScan::ExclusiveSum<OutT>(const __half*, OutT*, std::int64_t, cudaStream_t);           \
  template cudaError_t DeviceSegmentedScan::InclusiveSum<OutT>(const __half*, OutT*, std::int64_t, std::int64_t,   \
                                                               cudaStream_t);                                      \
  template cudaError_t DeviceSegmentedScan::ExclusiveSum<OutT>(const __half*, OutT*, std::int64_t, std::int64_t,   \
                                                               cudaStream_t);
TCU_INSTANTIATE(__half)
TCU_INSTANTIATE(float)
#undef TCU_INSTANTIATE

#define TCU_INSTANTIATE_RAGGED(OutT, OffsetT)                                                                     \
  template cudaError_t DeviceSegmentedScan::InclusiveSum<OutT, OffsetT>(const __half*, OutT*, std::int64_t,       \
                                                                        const OffsetT*, const OffsetT*,           \
                                                                        cudaStream_t);                            \
  template cudaError_t DeviceSegmentedScan::ExclusiveSum<OutT, OffsetT>(const __half*, OutT*, std::int64_t,       \
                                                                        const OffsetT*, const OffsetT*,           \
                                                                        cudaStream_t);
TCU_INSTANTIATE_RAGGED(float, std::int32_t)
TCU_INSTANTIATE_RAGGED(float, std::int64_t)
TCU_INSTANTIATE_RAGGED(__half, std::int32_t)
TCU_INSTANTIATE_RAGGED(__half, std::int64_t)
#undef TCU_INSTANTIATE_RAGGED
template cudaError_t DeviceSegmentedReduce::Sum<std::int32_t>(const __half*, float*, std::int64_t, const std::int32_t*,
                                                              const std::int32_t*, cudaStream_t);
template cudaError_t DeviceSegmentedReduce::Sum<std::int64_t>(const __half*, float*, std::int64_t, const std::int64_t*,
                                                              const std::int64_t*, cudaStream_t);

}  // namespace tcu
