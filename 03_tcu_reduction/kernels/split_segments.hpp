#pragma once
// How a warp-per-chunk launcher cuts long segments into chunks (host code, no CUDA needed):
// ONE function that the launchers (split_segments.cuh, run_split) and the error bound
// (error_bound.cpp) both call, so that the bound follows the chunks the kernels really reduce.
//
// A segment much longer than a warp's fair share would leave most of the GPU idle (the paper's
// "low occupancy above 2^15"): where segments are few, each one is cut into chunks so that
// about 128 warps per SM have work, at most one chunk per kMinChunk elements (16 tiles), every
// chunk a multiple of `granule` (so that chunks start where tiles, or rounds of tiles, start). A warp reduces a
// chunk to one fp32 partial; a second, deterministic pass (second_pass.hpp) adds the partials.
#include <algorithm>
#include <cstdint>

#include "common/int_math.hpp"
#include "common/tensor_core/constant_matrices.hpp"  // kTileElems

namespace tcu::detail::reduce {

inline constexpr std::int64_t kMinChunk = 16 * tc::kTileElems;  // 16 tiles per warp at least
inline constexpr std::int64_t kTargetWarpsPerSm = 64 * 2;      // warps with work, per SM

struct SplitPlan {
  std::int64_t chunk = 0;               // elements per chunk (a multiple of granule)
  std::int64_t chunks_per_segment = 1;  // ceil(segment_size / chunk)
};

// The chunks of num_segments segments of segment_size on a device with sm_count SMs.
constexpr SplitPlan split_segments(std::int64_t num_segments, std::int64_t segment_size, std::int64_t granule,
                                   int sm_count) {
  const std::int64_t target_warps = std::int64_t(std::max(sm_count, 1)) * kTargetWarpsPerSm;
  std::int64_t cps = 1;
  if (num_segments < target_warps && segment_size > kMinChunk)
    cps = std::min(ceil_div(target_warps, num_segments), ceil_div(segment_size, kMinChunk));
  SplitPlan plan;
  plan.chunk = round_up(ceil_div(segment_size, cps), granule);
  plan.chunks_per_segment = ceil_div(segment_size, plan.chunk);
  return plan;
}

// The block-level kernel's split (05_reduction256n_block.cu): a block reduces a chunk of at most
// kBlockChunk elements. One block per segment serialises a long segment on one SM: with fewer
// segments than SMs most of the GPU idles. Cut into chunks of at most 2^18, a long segment
// becomes many blocks' work again (the chapter's sweep in docs/results/ shows both). The chunks
// are equal (a multiple of `granule`, the block's round) but for the segment's last one; a
// second pass adds the partials. That pass costs a little where the segments alone would fill
// the GPU: cutting only when they cannot is left to do.
inline constexpr std::int64_t kBlockChunk = std::int64_t(1) << 18;

constexpr SplitPlan split_for_blocks(std::int64_t segment_size, std::int64_t granule) {
  SplitPlan plan;
  if (segment_size <= kBlockChunk) {
    plan.chunk = segment_size;
    return plan;
  }
  plan.chunk = round_up(ceil_div(segment_size, ceil_div(segment_size, kBlockChunk)), granule);
  plan.chunks_per_segment = ceil_div(segment_size, plan.chunk);
  return plan;
}

// The second pass (second_pass.cu) adds up to this many partials of a segment with one thread
// per segment in chunk order; more with a block per segment (strided shares, then a tree).
inline constexpr std::int64_t kFewPartials = 8;

}  // namespace tcu::detail::reduce
