#pragma once
// Long segments cut into chunks, and the second pass that adds the chunks' partials: the one
// place where every chapter decides how a long segment becomes the work of many warps or
// blocks (host code; the error bounds call the same functions, so they follow the chunks the
// kernels really reduce).
//
// A segment much longer than a worker's fair share would leave most of the GPU idle (Dakkak et
// al.'s "low occupancy above 2^15"): where segments are few, each one is cut into chunks so that
// about `target_workers` warps or blocks have work, each chunk at least `min_chunk` elements and
// a multiple of `granule` (chunks start where tiles, rounds or block tiles start). A worker
// reduces a chunk to one fp32 partial; sum_partials adds a segment's partials in a fixed order.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "common/int_math.hpp"
#include "common/tensor_core/launch.hpp"

namespace tcu::tc {

struct ChunkPlan {
  std::int64_t chunk = 0;               // elements per chunk (a multiple of granule)
  std::int64_t chunks_per_segment = 1;  // ceil(segment_size / chunk)
};

constexpr ChunkPlan plan_chunks(std::int64_t num_segments, std::int64_t segment_size, std::int64_t granule,
                                std::int64_t target_workers, std::int64_t min_chunk) {
  std::int64_t cps = 1;
  if (num_segments < target_workers && segment_size > min_chunk)
    cps = std::min(ceil_div(target_workers, num_segments), ceil_div(segment_size, min_chunk));
  ChunkPlan plan;
  plan.chunk = round_up(ceil_div(segment_size, cps), granule);
  plan.chunks_per_segment = ceil_div(segment_size, plan.chunk);
  return plan;
}

// Warp chunks (chapter 03's split kernels): about 128 warps with work per SM, 16 tiles each at least.
inline constexpr std::int64_t kMinWarpChunk = 16 * 256;
inline constexpr std::int64_t kTargetWarpsPerSm = 64 * 2;
constexpr ChunkPlan plan_warp_chunks(std::int64_t num_segments, std::int64_t segment_size, std::int64_t granule,
                                     int sm_count) {
  return plan_chunks(num_segments, segment_size, granule, std::int64_t(std::max(sm_count, 1)) * kTargetWarpsPerSm,
                     kMinWarpChunk);
}

// Chunk `item % chunks_per_segment` of segment `item / chunks_per_segment`: its first element
// and length (the segment's last chunk may be shorter).
struct Chunk {
  std::int64_t first, len;
};
TCU_HOST_DEVICE constexpr Chunk chunk_of(std::int64_t item, std::int64_t segment_size, const ChunkPlan& plan) {
  const std::int64_t seg = item / plan.chunks_per_segment, off = (item % plan.chunks_per_segment) * plan.chunk;
  return Chunk{seg * segment_size + off, segment_size - off < plan.chunk ? segment_size - off : plan.chunk};
}

// out[s] = Σ_c partials[s·chunks_per_segment + c] in fp32, in a fixed order (deterministic): up
// to kFewPartials a thread per segment adds them in chunk order; more, a block per segment
// (strided shares, then a tree). Defined in chunks.cu.
inline constexpr std::int64_t kFewPartials = 8;
cudaError_t sum_partials(const float* partials, float* out, std::int64_t num_segments,
                         std::int64_t chunks_per_segment, cudaStream_t stream);

// Runs `launch(out, plan)` (enqueues a kernel that writes one fp32 partial per chunk and returns
// its launch error) directly into d_out when a chunk is a whole segment, else into temporary
// partials and the second pass.
template <class Launch>
cudaError_t run_chunks(float* d_out, std::int64_t num_segments, const ChunkPlan& plan, cudaStream_t stream,
                       Launch&& launch) {
  if (plan.chunks_per_segment == 1) return launch(d_out, plan);
  TempBuffer<float> partials;
  if (cudaError_t e = partials.allocate(num_segments * plan.chunks_per_segment, stream); e != cudaSuccess) return e;
  if (cudaError_t e = launch(partials.get(), plan); e != cudaSuccess) return e;
  return sum_partials(partials.get(), d_out, num_segments, plan.chunks_per_segment, stream);
}

}  // namespace tcu::tc
