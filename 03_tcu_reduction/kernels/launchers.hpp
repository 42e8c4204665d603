#pragma once
// The chapter's launchers, one per algorithm, each defined next to its kernel in
// kernels/NN_<algorithm>.cu (lesson order), and the launch shapes that the API
// (tcu_reduction.cu: the dispatch table) and the error bound (error_bound.cpp) share.
// Chapter-internal: host code, no device code, no CUDA compiler needed to include it.
//
//   cudaError_t launch_xxx(d_in, d_out, num_segments, segment_size, stream)
//
// A launcher may assume valid arguments (tcu_reduction.cu checked them: num_segments >= 1,
// a segment size the algorithm supports, non-null pointers) and returns the launch's error.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "03_tcu_reduction/kernels/split_segments.hpp"
#include "03_tcu_reduction/tcu_reduction.cuh"
#include "common/int_math.hpp"
#include "common/tensor_core/constant_matrices.hpp"

namespace tcu::detail::reduce {

// ---- launch shapes ---------------------------------------------------------------------------
inline constexpr int kWarps = 8;                // warps per block of the warp-level kernels
inline constexpr int kThreads = kWarps * 32;
inline constexpr int kInFlight = 4;             // 16-byte loads per lane in flight (4 shared tiles)
inline constexpr int kInFlight8 = 8;            // the streaming kernels: 8 per lane
inline constexpr int kMultiSegmentTiles = 8;    // Reduction16 multi-segment: tiles per round
inline constexpr int kEfficientRoundTiles = 8;  // Reduction256N work-efficient: tiles per round
// Chunk granules of the split kernels: chunks start where a tile (inefficient) or a round of
// tiles (efficient) starts.
inline constexpr std::int64_t kInefficientGranule = tc::kTileElems;
inline constexpr std::int64_t kEfficientGranule = std::int64_t(kEfficientRoundTiles) * tc::kTileElems;
// The block-level 256N's chunks (split_for_blocks) start where a round of the block starts.
inline constexpr std::int64_t kBlockGranule = std::int64_t(kWarps) * kInFlight * tc::kTileElems;
static_assert(kBlockChunk % kBlockGranule == 0, "a block's chunks are whole rounds");

// ---- which segment sizes each algorithm takes ------------------------------------------------
constexpr bool any_segment_size(std::int64_t s) { return s >= 1; }
constexpr bool reduction16_supports(std::int64_t s) { return s >= 1 && s <= tc::kTile; }
constexpr bool reduction256_supports(std::int64_t s) { return s >= 1 && s <= tc::kTileElems; }
// 16 · 2^j dividing a round of 8 tiles: whole 16-element rows per segment, whole segments per round.
constexpr bool reduction16_multisegment_supports(std::int64_t s) {
  return s >= tc::kTile && s <= kMultiSegmentTiles * tc::kTileElems && is_pow2(s);
}
// Segments of any size: 17 … 2^30 cut at their starts inside aligned tiles (segment offsets are
// 32-bit); 1 … 16 are passed to Reduction16 (a segment per row).
inline constexpr std::int64_t kAnySizeMax = std::int64_t{1} << 30;
// Its launch shape: blocks of 4 warps, 4 blocks per SM at least; one warp per share of whole
// segments.
inline constexpr int kAnySizeWarps = 4;
inline constexpr int kAnySizeBlocksPerSm = 4;
inline constexpr std::int64_t kAnySizeRoundElems = 8 * tc::kTileElems;  // a round: 8 tiles
constexpr bool reduction_any_size_supports(std::int64_t s) { return s >= 1 && s <= kAnySizeMax; }

// ---- shapes of the chained variants (Navarro et al.) -----------------------------------------
bool chained_config_ok(const ChainedMmaConfig& c);  // 09_chained_mma_recurrence.cu
// Elements one warp chains (R tiles).
constexpr std::int64_t chained_warp_chunk(const ChainedMmaConfig& c) {
  return std::int64_t(c.chain_length) * tc::kTileElems;
}
// Single pass: block items per segment (a block chains warps · R tiles).
constexpr std::int64_t chained_single_pass_blocks(std::int64_t s, const ChainedMmaConfig& c) {
  return ceil_div(s, std::int64_t(c.block_threads / 32) * chained_warp_chunk(c));
}
// Split: block items per segment (R = 1: a block takes warps tiles).
constexpr std::int64_t chained_split_blocks(std::int64_t s, const ChainedMmaConfig& c) {
  return ceil_div(s, std::int64_t(c.block_threads / 32) * tc::kTileElems);
}

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
// 09 … 11: the chained variants with explicit parameters (config checked by the caller) …
cudaError_t launch_chained_mma_recurrence(const ChainedMmaConfig& config, const __half* d_in, float* d_out,
                                          std::int64_t num_segments, std::int64_t segment_size,
                                          cudaStream_t stream);
cudaError_t launch_chained_mma_fp16_accumulate(const ChainedMmaConfig& config, const __half* d_in, float* d_out,
                                               std::int64_t num_segments, std::int64_t segment_size,
                                               cudaStream_t stream);
cudaError_t launch_chained_mma_single_pass(const ChainedMmaConfig& config, const __half* d_in, float* d_out,
                                           std::int64_t num_segments, std::int64_t segment_size,
                                           cudaStream_t stream);
cudaError_t launch_chained_mma_split(const ChainedMmaConfig& config, const __half* d_in, float* d_out,
                                     std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream);
// … and with the defaults (the paper's best: B = 128, R = 4), as the dispatch table calls them.
template <cudaError_t (*kLaunch)(const ChainedMmaConfig&, const __half*, float*, std::int64_t, std::int64_t,
                                 cudaStream_t)>
cudaError_t with_default_config(const __half* d_in, float* d_out, std::int64_t num_segments,
                                std::int64_t segment_size, cudaStream_t stream) {
  return kLaunch(ChainedMmaConfig{}, d_in, d_out, num_segments, segment_size, stream);
}

}  // namespace tcu::detail::reduce
