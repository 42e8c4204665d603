#pragma once
// The chapter's launchers, one per algorithm, each defined next to its kernel in
// kernels/NN_<algorithm>.cu (lesson order), for the dispatch table (tcu_reduction.cu), the
// error bound (error_bound.cpp) and the tests. Host code; the lessons do not include it.
//
//   cudaError_t launch_xxx(d_in, d_out, num_segments, segment_size, stream)
//
// A launcher may assume valid arguments (tcu_reduction.cu checked them: num_segments >= 1,
// a segment size the algorithm supports, non-null pointers) and returns the launch's error.
// The chunk plans and shapes below are the lessons' own, so the error bound follows them.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/int_math.hpp"
#include "common/tensor_core/chunks.hpp"
#include "common/tensor_core/constant_matrices.hpp"

namespace tcu::detail::reduce {

// ---- which segment sizes each algorithm takes ------------------------------------------------
constexpr bool any_segment_size(std::int64_t s) { return s >= 1; }
constexpr bool reduction16_supports(std::int64_t s) { return s >= 1 && s <= tc::kTile; }
constexpr bool reduction256_supports(std::int64_t s) { return s >= 1 && s <= tc::kTileElems; }
// 16 · 2^j dividing a round of 8 tiles: whole 16-element rows per segment, whole segments per round.
constexpr bool reduction16_multisegment_supports(std::int64_t s) {
  return s >= tc::kTile && s <= 8 * tc::kTileElems && is_pow2(s);
}
// Segments of any size: 17 … 2^30 cut at their starts inside aligned tiles (segment offsets are
// 32-bit); 1 … 16 are passed to Reduction16 (a segment per row). The walk (13) takes the same
// sizes (1 … 16 to Reduction16).
constexpr bool reduction_any_size_supports(std::int64_t s) { return s >= 1 && s <= (std::int64_t{1} << 30); }
inline constexpr std::int64_t kAnySizeRoundElems = 8 * tc::kTileElems;  // 12's round (tc::kRowScanTiles tiles)
// The walk (13) gives each warp whole segments: long ones fill the GPU only when there are
// thousands of them (SMs × 24 or more resident warps).
inline constexpr std::int64_t kWalkFewSegments = 4096;

// ---- the lessons' chunks of long segments (a partial per chunk, then tc::sum_partials) -------
// 03, 04: warp chunks (tc::plan_warp_chunks) that start at a tile (03) or a round of 8 tiles (04).
tc::ChunkPlan reduction256n_inefficient_chunks(std::int64_t num_segments, std::int64_t segment_size, int sm_count);
tc::ChunkPlan reduction256n_efficient_chunks(std::int64_t num_segments, std::int64_t segment_size, int sm_count);
// 05: block chunks of at most 2^18 elements, whole block tiles (a shorter segment is one chunk).
tc::ChunkPlan split_for_blocks(std::int64_t segment_size);

// ---- shapes of the chained variants (Navarro et al.; 09 … 11) ------------------------------
bool chained_config_ok(int chain_length, int block_threads, double tcu_fraction);  // 09
constexpr std::int64_t chained_warp_chunk(int chain_length) {  // elements one warp chains (R tiles)
  return std::int64_t(chain_length) * tc::kTileElems;
}
std::int64_t chained_single_pass_blocks(std::int64_t s, int chain_length, int block_threads);  // 10
std::int64_t chained_split_blocks(std::int64_t s, int block_threads);                          // 11

// ---- the launchers, in lesson order ----------------------------------------------------------
using Launcher = cudaError_t (*)(const __half*, float*, std::int64_t, std::int64_t, cudaStream_t);

cudaError_t launch_reduction16(const __half* d_in, float* d_out, std::int64_t num_segments,
                               std::int64_t segment_size, cudaStream_t stream);               // 01
cudaError_t launch_reduction256(const __half* d_in, float* d_out, std::int64_t num_segments,
                                std::int64_t segment_size, cudaStream_t stream);              // 02
cudaError_t launch_reduction256n_inefficient(const __half* d_in, float* d_out, std::int64_t num_segments,
                                             std::int64_t segment_size, cudaStream_t stream); // 03
cudaError_t launch_reduction256n_efficient(const __half* d_in, float* d_out, std::int64_t num_segments,
                                           std::int64_t segment_size, cudaStream_t stream);   // 04
cudaError_t launch_reduction256n_block(const __half* d_in, float* d_out, std::int64_t num_segments,
                                       std::int64_t segment_size, cudaStream_t stream);       // 05
cudaError_t launch_reduction16n_strided(const __half* d_in, float* d_out, std::int64_t num_segments,
                                        std::int64_t segment_size, cudaStream_t stream);      // 06
cudaError_t launch_reduction16n_coalesced(const __half* d_in, float* d_out, std::int64_t num_segments,
                                          std::int64_t segment_size, cudaStream_t stream);    // 07
cudaError_t launch_reduction16_multisegment(const __half* d_in, float* d_out, std::int64_t num_segments,
                                            std::int64_t segment_size, cudaStream_t stream);  // 08
cudaError_t launch_reduction_any_size(const __half* d_in, float* d_out, std::int64_t num_segments,
                                      std::int64_t segment_size, cudaStream_t stream);        // 12
cudaError_t launch_reduction_walk(const __half* d_in, float* d_out, std::int64_t num_segments,
                                  std::int64_t segment_size, cudaStream_t stream);            // 13
// 09 … 11: the chained variants with explicit parameters (checked by the caller: chained_config_ok).
cudaError_t launch_chained_mma_recurrence(int chain_length, const __half* d_in, float* d_out,
                                          std::int64_t num_segments, std::int64_t segment_size,
                                          cudaStream_t stream);
cudaError_t launch_chained_mma_fp16_accumulate(int chain_length, const __half* d_in, float* d_out,
                                               std::int64_t num_segments, std::int64_t segment_size,
                                               cudaStream_t stream);
cudaError_t launch_chained_mma_single_pass(int chain_length, int block_threads, const __half* d_in, float* d_out,
                                           std::int64_t num_segments, std::int64_t segment_size,
                                           cudaStream_t stream);
cudaError_t launch_chained_mma_split(int block_threads, double tcu_fraction, const __half* d_in, float* d_out,
                                     std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream);

}  // namespace tcu::detail::reduce
