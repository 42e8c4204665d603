#pragma once
// The split of long segments, as the split kernels (03, 04) see it: a warp's work item is one
// chunk of one segment (the plan: split_segments.hpp), and the launcher runs the kernel into
// the result directly (one chunk per segment) or into fp32 partials plus the second pass.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "03_tcu_reduction/kernels/second_pass.hpp"
#include "03_tcu_reduction/kernels/split_segments.hpp"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::reduce {

// A warp's (the block-level kernel: a block's) work item of the split kernels: chunk
// `item % chunks_per_segment` of segment `item / chunks_per_segment`, at most `chunk` elements.
struct ChunkItem {
  const __half* p;   // first element
  std::int64_t len;  // elements
};
__device__ __forceinline__ ChunkItem chunk_item(const __half* x, std::int64_t item, std::int64_t segment_size,
                                                std::int64_t chunk, std::int64_t chunks_per_segment) {
  const std::int64_t seg = item / chunks_per_segment, first = (item % chunks_per_segment) * chunk;
  return {x + seg * segment_size + first, min(chunk, segment_size - first)};
}

// Runs a chunk kernel `launch(out, chunk, chunks_per_segment)` on the chunks of `plan`, directly
// into d_out when one chunk covers a segment, else into temporary partials and the second pass;
// run_split: the same for a warp-per-chunk kernel on the chunks of split_segments (current device).
template <class Launch>
cudaError_t run_plan(float* d_out, std::int64_t num_segments, const SplitPlan& plan, cudaStream_t stream,
                     Launch&& launch) {
  if (plan.chunks_per_segment == 1) {
    launch(d_out, plan.chunk, plan.chunks_per_segment);
    return cudaGetLastError();
  }
  tc::TempBuffer<float> partials;
  if (cudaError_t e = partials.allocate(num_segments * plan.chunks_per_segment, stream); e != cudaSuccess) return e;
  launch(partials.get(), plan.chunk, plan.chunks_per_segment);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  return sum_partials(partials.get(), d_out, num_segments, plan.chunks_per_segment, stream);
}
template <class Launch>
cudaError_t run_split(float* d_out, std::int64_t num_segments, std::int64_t segment_size, std::int64_t granule,
                      cudaStream_t stream, Launch&& launch) {
  return run_plan(d_out, num_segments, split_segments(num_segments, segment_size, granule, tc::sm_count()), stream,
                  launch);
}

}  // namespace tcu::detail::reduce
