#pragma once
// Chapter 04's public API: segmented prefix sums of fp16 data on tensor cores.
//
//   cudaError_t tcu::segmented_inclusive_scan_sum(const __half* d_in, OutT* d_out,
//       std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream = 0);
//   cudaError_t tcu::segmented_exclusive_scan_sum(...same...);
//
// d_in holds num_segments contiguous segments of segment_size elements; segment s of d_out
// receives the inclusive (x0, x0+x1, ...) or exclusive (0, x0, ...) prefix sums of segment s.
// OutT is __half (Dakkak et al.'s output type) or float (accurate). Sums are accumulated in fp32.
// Any segment_size >= 1, any num_segments >= 0 (0: nothing to do), any 2-byte-aligned
// (__half) / 4-byte-aligned (float) device pointers; stream-ordered, asynchronous.
// Invalid arguments (null pointers with work to do, segment_size < 1, num_segments < 0,
// a total that overflows, a misaligned pointer) return cudaErrorInvalidValue and launch nothing.
// Range: fp32 intermediates that become fp16 MMA operands are split into hi + lo halves
// (2^-22 relative), so partial sums inside one 4096-element piece must stay below 65504.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace tcu {

// The algorithms (ALGORITHMS.md, "Scan" and "MatMulScan"). `automatic` picks by segment size.
enum class ScanAlgo {
  automatic,
  scan16,        // Dakkak Scan16: A·U, 16 segments per tile            (segment_size <= 16)
  scan256,       // Dakkak Scan256: A·U + (L·A)·1, 3 MMAs (+1 for the hi/lo split)  (<= 256)
  scan256n,      // Dakkak Scan256N: one warp per segment, scalar carry broadcast in C (any)
  scan16n,       // Dakkak Scan16N (Alg. 5): 16 segments per warp, last-column carry  (any)
  scan256_block, // Dakkak block level (Alg. 7, with the barrier): tiles + TCU scan of tile totals (any)
  matmulscan,    // Zouzias & McColl MatMulScan, s = 16, k <= 3 per block, pieces joined by a carry (any)
  scan256_pipelined,  // ours: Scan256 per tile over 8-tile rounds of the array, next round's loads in
                      // flight, fp32 carry between tiles (power-of-two segment sizes >= 16)
  scan256_pipelined_shfl,  // the same walk, rows scanned by A·U (1 MMA), the offsets between the
                           // 16 rows by a shuffle scan of the row totals (power-of-two sizes >= 16)
};

const char* scan_algo_name(ScanAlgo a);
// "auto", "scan16", ...; returns false for an unknown name.
bool parse_scan_algo(const std::string& name, ScanAlgo& out);
// Largest segment size the algorithm accepts (INT64_MAX: any).
std::int64_t scan_algo_max_segment(ScanAlgo a);
// Whether the algorithm takes this segment size (the maximum above, and the powers of two >= 16
// of the two scan256_pipelined variants).
bool scan_algo_supports(ScanAlgo a, std::int64_t segment_size);
// What `automatic` runs for this segment size and output type (the crossovers measured on the
// H100; for fp32 outputs, long segments avoid carrying the running sum in the MMA accumulator,
// whose truncating additions cost accuracy in proportion to the number of tiles).
ScanAlgo choose_scan_algo(std::int64_t segment_size, bool fp32_output);

template <class OutT>
cudaError_t segmented_inclusive_scan_sum(const __half* d_in, OutT* d_out, std::int64_t num_segments,
                                         std::int64_t segment_size, cudaStream_t stream = 0);
template <class OutT>
cudaError_t segmented_exclusive_scan_sum(const __half* d_in, OutT* d_out, std::int64_t num_segments,
                                         std::int64_t segment_size, cudaStream_t stream = 0);

// Explicit choice. An algorithm asked for a segment size it does not take (scan_algo_supports)
// returns cudaErrorInvalidValue.
template <class OutT>
cudaError_t segmented_scan_sum(ScanAlgo algo, bool inclusive, const __half* d_in, OutT* d_out,
                               std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream = 0);

}  // namespace tcu
