// How far chapter 03's sum of n fp16 values (one segment) may be from the exact sum.
//
// The bound follows the structure chapter 03 documents (tcu_reduction.cuh, kernels/
// reduction256n_efficient.cuh): from 256 elements on, the segment is cut into chunks, one per
// warp, sized so that about SMs x 128 warps have work (at least 4096 elements, a multiple of
// 2048); a warp adds 16-element column pieces of its chunk into V with chained MMAs (a chain
// of chunk/16 additions per column), splits V into fp16 hi + lo (exact to 2^-22 of |V|),
// adds the 16 columns with V·Pᵀ (16 more), and a second pass adds the chunks' fp32 partials
// (a strided loop of ceil(chunks/256) plus an 8-level tree). Below 256 elements the strided
// Reduction16N adds at most n values in a chain. Each level is charged 2u of fp32
// (tcu::tolerance_for_accumulation), and the hi/lo split 2^-22 of sum |x|.
#include <algorithm>
#include <cmath>
#include <string>

#include "06_jetson_unified_memory/unified_memory.hpp"
#include "common/segments.hpp"

namespace tcu::unified_memory {

Tolerance gpu_reduction_tolerance(std::int64_t n, int sm_count) {
  constexpr std::int64_t kTileElems = 256, kMinChunk = 16 * kTileElems, kGranule = 8 * kTileElems;
  std::int64_t depth = 0;
  std::string how;
  if (n < kTileElems) {
    depth = n + 16;
    how = "a chain of at most n + 16 additions";
  } else {
    const std::int64_t target_warps = std::int64_t(std::max(sm_count, 1)) * 128;
    std::int64_t chunks = 1;
    if (n > kMinChunk) chunks = std::min(target_warps, ceil_div(n, kMinChunk));
    const std::int64_t chunk = ceil_div(ceil_div(n, chunks), kGranule) * kGranule;
    chunks = ceil_div(n, chunk);
    depth = chunk / 16 + 16 + 4 + ceil_div(chunks, 256) + 8;
    how = "chunks of " + std::to_string(chunk) + " per warp, " + std::to_string(chunks) + " partials";
  }
  Tolerance t = tolerance_for_accumulation(static_cast<int>(std::min<std::int64_t>(depth, 1 << 30)),
                                           NumType::fp32, NumType::fp32);
  t.rel_to_magnitude += std::ldexp(1.0, -22);
  t.rationale = "depth " + std::to_string(depth) + " in fp32 (" + how + ") + 2^-22 hi/lo split";
  return t;
}

}  // namespace tcu::unified_memory
