#pragma once
// Chapter 03's public API: segmented sums of fp16 data on tensor cores, fp32 results.
//
//   #include "03_tcu_reduction/tcu_reduction.cuh"       // link the CMake target tcu_reduction
//   // d_out[s] = sum of d_in[s·segment_size … (s+1)·segment_size − 1], s < num_segments
//   cudaError_t err = tcu::segmented_reduce_sum(d_in, d_out, num_segments, segment_size, stream);
//   // a whole array: one segment
//   err = tcu::segmented_reduce_sum(d_in, d_total, 1, n, stream);
//   // one algorithm of the papers, explicitly
//   err = tcu::segmented_reduce_sum(tcu::ReduceAlgorithm::reduction16n_strided, d_in, d_out, ns, s);
//
// Contract (like CUB's device-wide functions):
//   - asynchronous on `stream`; errors of the launch are returned, errors while the kernels
//     run surface at the next synchronising call;
//   - any pointer alignment (unaligned tiles are staged through shared memory), any
//     segment_size >= 1, num_segments >= 0; zero segments: cudaSuccess and nothing is done;
//   - invalid arguments (null pointers with work to do, negative sizes, segment_size 0,
//     num_segments × segment_size overflowing int64, or an algorithm asked for a segment size
//     it cannot do, see reduce_algorithm_supports) → cudaErrorInvalidValue, nothing launched;
//   - fp32 accumulation throughout (except ReduceAlgorithm::chained_mma_fp16_accumulate, the
//     accuracy study's replica of Navarro et al.'s fp16 accumulators, which overflows); how
//     far a result may be from the exact sum: reduce_error_bound;
//   - deterministic: the same input gives the same bits, run after run, for every algorithm
//     except chained_mma_single_pass and chained_mma_split (float atomics, one per block);
//   - long segments are split across many warps or blocks (fp32 partials, then a second,
//     deterministic pass), so one huge segment (a whole array) runs at full bandwidth too. That
//     path takes temporary device memory (4 bytes per chunk, a few hundred KiB at most) stream-
//     ordered from a memory pool private to the library that keeps it between calls; an
//     allocation failure is returned as cudaErrorMemoryAllocation.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tcu {

// The algorithms of the papers (docs/algorithms.md, "Reduction" and "Chained-MMA reduction").
enum class ReduceAlgorithm {
  automatic,                    // chosen by segment size from the measured crossovers
  reduction16,                  // Dakkak: V = P·A, 16 segments of <= 16 per tile
  reduction256,                 // Dakkak: V = P·A, R = V·Pᵀ, one segment of <= 256 per tile
  reduction256n_inefficient,    // Dakkak: N × Reduction256, the scalar carried in C (3N MMAs with the hi/lo split)
  reduction256n_efficient,      // Dakkak: V_i = P·A_i + V_{i-1}, one V·Pᵀ at the end (N + 2 MMAs with the split)
  reduction256n_block,          // Dakkak Alg. 4: a block per segment (or 2^18-element chunk), warp partials by warp 0
  reduction16n_strided,         // Dakkak Fig. 8: 16 segments side by side, ldm = segment size
  reduction16n_coalesced,       // Dakkak Alg. 3: 256-element blocks per segment + strided rest
  reduction16_multisegment,     // ours: coalesced 256-element tiles holding whole segments, V = Σ E_k·A_k, R = V·M
  chained_mma_recurrence,       // Navarro variant 1: R chained MMAs per warp, relaunch on partials
  chained_mma_single_pass,      // Navarro variant 2: chained MMAs, shuffles, one atomicAdd per block
  chained_mma_split,            // Navarro variant 3: a fraction of the blocks on TCUs, the rest shuffles
  chained_mma_fp16_accumulate,  // Navarro's fp16 accumulators (accuracy study only: overflows)
  reduction_any_size,           // ours: aligned tiles of the array, rows cut at segment starts, any size
  reduction_walk,               // ours: one add per element on CUDA cores, lanes joined by a segmented shuffle scan
};

// Every algorithm but `automatic`, in the order of the chapter (its lesson order).
std::vector<ReduceAlgorithm> all_reduce_algorithms();
const char* reduce_algorithm_name(ReduceAlgorithm a);  // "reduction16n_strided", ...; "auto"
// The name of an algorithm (as reduce_algorithm_name writes it; "automatic" is also taken).
std::optional<ReduceAlgorithm> parse_reduce_algorithm(const std::string& name);
// One line on what the algorithm does (for --help and the tables).
const char* reduce_algorithm_description(ReduceAlgorithm a);
// Reduction16 takes segments of 1…16 elements, Reduction256 of 1…256, Reduction16
// multi-segment the powers of two 16…2048, reduction_any_size 1…2^30; all others any size.
bool reduce_algorithm_supports(ReduceAlgorithm a, std::int64_t segment_size);
// What `automatic` runs for this shape on the current device (never `automatic` itself) …
ReduceAlgorithm choose_reduce_algorithm(std::int64_t num_segments, std::int64_t segment_size);
// … and on a device with `sm_count` SMs whose memory delivers `memory_bytes_per_sm_cycle` bytes per
// SM and SM clock cycle at its peak (planning on the host, tests; 0: not asked).
ReduceAlgorithm choose_reduce_algorithm(std::int64_t num_segments, std::int64_t segment_size, int sm_count,
                                        double memory_bytes_per_sm_cycle = 0.0);

// How far a result of segmented_reduce_sum may be from the exact sum of its segment:
//   |result − exact| <= rel_to_abs_sum · Σ|x| + abs       (x: the segment's fp16 inputs)
// derived from what the library does for this shape: the chain of fp32 roundings along the
// actual split of the segment into warp chunks and the second pass over their partials
// (`depth` levels, each charged 2u = 2^-23: the tensor cores' internal rounding is not
// documented), plus 2^-22 for every fp32 → fp16 hi/lo split on the way (and 2^-25 absolute
// per value split: lo may be an fp16 subnormal). With integer inputs whose partial sums stay
// below 2^24 every algorithm is exact. The chained variants are bounded with the default
// ChainedMmaConfig; chained_mma_fp16_accumulate in fp16 (2^-10 per level) until it overflows.
struct ReduceErrorBound {
  double rel_to_abs_sum = 0;  // times Σ|x| of the segment
  double abs = 0;             // absolute slack of the hi/lo splits
  int depth = 0;              // rounding levels on the longest path
  std::string rationale;      // "reduction256n_efficient: chunks of 4096 per warp, …"
};
// For the current device (the split of long segments depends on its SM count) …
ReduceErrorBound reduce_error_bound(ReduceAlgorithm algorithm, std::int64_t num_segments, std::int64_t segment_size);
// … and for a device with `sm_count` SMs (`automatic`: choose_reduce_algorithm's choice for it,
// its memory not asked).
ReduceErrorBound reduce_error_bound(ReduceAlgorithm algorithm, std::int64_t num_segments, std::int64_t segment_size,
                                    int sm_count);

// d_out[s] = Σ d_in[s·segment_size + j], j < segment_size, for s < num_segments.
cudaError_t segmented_reduce_sum(const __half* d_in, float* d_out, std::int64_t num_segments,
                                 std::int64_t segment_size, cudaStream_t stream = 0);
cudaError_t segmented_reduce_sum(ReduceAlgorithm algorithm, const __half* d_in, float* d_out,
                                 std::int64_t num_segments, std::int64_t segment_size,
                                 cudaStream_t stream = 0);

// Tuning knobs of Navarro's chained variants (the paper's R and block size B; f for split).
struct ChainedMmaConfig {
  int chain_length = 4;         // R: 256-element tiles per warp before the warp collapses its sum
  int block_threads = 128;      // B: 32 … 1024, a multiple of 32
  double tcu_fraction = 0.5;    // f: share of the blocks that use tensor cores (split variant)
};
// The chained variants with explicit parameters (invalid parameters → cudaErrorInvalidValue).
cudaError_t segmented_reduce_sum_chained(ReduceAlgorithm chained_variant, const ChainedMmaConfig& config,
                                         const __half* d_in, float* d_out, std::int64_t num_segments,
                                         std::int64_t segment_size, cudaStream_t stream = 0);

}  // namespace tcu
