#pragma once
// Chapter 04's public API: segmented prefix sums of fp16 data on tensor cores.
//
//   #include "04_tcu_scan/tcu_scan.cuh"                 // link the CMake target tcu_scan
//   // segment s of d_out = the inclusive (x0, x0+x1, …) prefix sums of segment s of d_in
//   cudaError_t err = tcu::segmented_inclusive_scan_sum(d_in, d_out, num_segments, segment_size, stream);
//   // … or the exclusive ones (0, x0, x0+x1, …)
//   err = tcu::segmented_exclusive_scan_sum(d_in, d_out, num_segments, segment_size, stream);
//   // one algorithm of the papers, explicitly
//   err = tcu::segmented_inclusive_scan_sum(tcu::ScanAlgorithm::matmulscan, d_in, d_out, ns, s);
//
// Contract (like CUB's device-wide functions):
//   - d_in holds num_segments contiguous segments of segment_size elements; OutT is __half
//     (Dakkak et al.'s output type) or float (accurate); sums are accumulated in fp32;
//   - asynchronous on `stream`; errors of the launch are returned, errors while the kernels
//     run surface at the next synchronising call;
//   - any segment_size >= 1, num_segments >= 0 (0: cudaSuccess, nothing is done), any 2-byte-
//     aligned (__half) / 4-byte-aligned (float) device pointers (tiles are staged through
//     shared memory);
//   - invalid arguments (null pointers with work to do, negative sizes, segment_size 0, a
//     total that overflows int64, a misaligned pointer, or an algorithm asked for a segment
//     size it does not take, see scan_algorithm_supports) → cudaErrorInvalidValue, nothing
//     launched;
//   - fp32 intermediates that become fp16 MMA operands are split into hi + lo halves (2^-22
//     relative; docs/algorithms.md, "The hi/lo split"); a tile whose values exceed 2^15 is not
//     split but finished in fp32 on the CUDA cores, so there is no range limit beyond fp32's
//     own (and fp16's 65504 for fp16 outputs);
//   - deterministic: the same input gives the same bits, run after run.
//   - every segment is scanned by one warp or one block: when segments are few and long (fewer
//     than a few per SM, e.g. one whole array), most of the GPU idles: one segment keeps one
//     warp or one block at work. The device-wide API of
//     chapter 05 (05_block_grid/tcu_device.cuh: tcu::DeviceScan, DeviceSegmentedScan) spreads
//     a long segment over the whole GPU.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tcu {

// The algorithms (docs/algorithms.md, "Scan" and "MatMulScan"), in lesson order.
enum class ScanAlgorithm {
  automatic,               // chosen by segment size and output type from the measured crossovers
  scan16,                  // Dakkak Scan16: A·U, 16 segments per tile                         (<= 16)
  scan256,                 // Dakkak Scan256: A·U + (L·A)·1, 3 MMAs (+1 for the hi/lo split)   (<= 256)
  scan256n,                // Dakkak Scan256N: one warp per segment, scalar carry in C           (any)
  scan16n,                 // Dakkak Scan16N (Alg. 5): 16 segments per warp, last-column carry   (any)
  scan256_block,           // Dakkak block level (Alg. 7, with the barrier)                      (any)
  matmulscan,              // Zouzias & McColl MatMulScan, s = 16, k <= 3 per slab               (any)
  scan256_pipelined,       // ours: Scan256 over 8-tile rounds, fp32 carry (powers of two >= 16)
  scan256_pipelined_shfl,  // the same walk, row offsets by a shuffle scan (powers of two >= 16)
  scan_any_size,           // ours: aligned tiles of the array, rows cut at segment starts   (any)
  scan_walk,               // ours: 256-element slices, lane scans on CUDA cores + a shuffle scan (any)
};

// Every algorithm but `automatic`, in lesson order.
std::vector<ScanAlgorithm> all_scan_algorithms();
const char* scan_algorithm_name(ScanAlgorithm a);  // "scan16", …; "auto" for automatic
// The name of an algorithm (as scan_algorithm_name writes it; "automatic" is also taken).
std::optional<ScanAlgorithm> parse_scan_algorithm(const std::string& name);
// One line on what the algorithm does and which segment sizes it takes (--help, messages).
const char* scan_algorithm_description(ScanAlgorithm a);
// Whether the algorithm takes this segment size: Scan16 1 … 16, Scan256 1 … 256, the two
// pipelined variants the powers of two >= 16, scan_any_size 1 … 2^30, all others (and
// automatic) any size >= 1.
bool scan_algorithm_supports(ScanAlgorithm a, std::int64_t segment_size);
// What `automatic` runs for this shape and output type (never `automatic` itself): the
// crossovers of the chapter's sweep; for fp32 outputs, long segments avoid carrying the running
// sum in the MMA accumulator, whose truncating additions cost accuracy in proportion to the
// number of tiles. Segments of 1024 … 2^16 that are not powers of two take scan_any_size
// (one warp per share of whole segments) only when there are at least 4096 of them.
ScanAlgorithm choose_scan_algorithm(std::int64_t num_segments, std::int64_t segment_size, bool fp32_output);

// The automatic choice.
template <class OutT>
cudaError_t segmented_inclusive_scan_sum(const __half* d_in, OutT* d_out, std::int64_t num_segments,
                                         std::int64_t segment_size, cudaStream_t stream = 0);
template <class OutT>
cudaError_t segmented_exclusive_scan_sum(const __half* d_in, OutT* d_out, std::int64_t num_segments,
                                         std::int64_t segment_size, cudaStream_t stream = 0);

// An explicit algorithm (ScanAlgorithm::automatic: the automatic choice).
template <class OutT>
cudaError_t segmented_inclusive_scan_sum(ScanAlgorithm algorithm, const __half* d_in, OutT* d_out,
                                         std::int64_t num_segments, std::int64_t segment_size,
                                         cudaStream_t stream = 0);
template <class OutT>
cudaError_t segmented_exclusive_scan_sum(ScanAlgorithm algorithm, const __half* d_in, OutT* d_out,
                                         std::int64_t num_segments, std::int64_t segment_size,
                                         cudaStream_t stream = 0);

namespace detail::scan {
// Both of the above behind one flag (the benchmark's sweeps run either).
template <class OutT>
cudaError_t segmented_scan_sum(ScanAlgorithm algorithm, bool inclusive, const __half* d_in, OutT* d_out,
                               std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream = 0);
}  // namespace detail::scan

}  // namespace tcu
