// Lesson 2a — Dakkak et al.'s grid-level reduction, two kernels: a segment too long for one
// block is cut into chunks, each block reduces a chunk with Alg. 4 (01_block_reduce.cu) into a
// partial, and a second kernel sums each segment's partials. Chunks are whole block tiles and
// there are about as many as the GPU holds blocks at once, so every block streams a long range
// with its loads in flight. When the segments alone fill the GPU, one block per segment and no
// second kernel (the block level). Deterministic: the chunks and the order of the final sums
// depend on the sizes and the GPU only.
#include <algorithm>

#include "05_block_grid/kernels/block_tile.cuh"
#include "05_block_grid/kernels/launch_block.cuh"
#include "05_block_grid/kernels/launchers.hpp"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::device {
namespace {

// One warp per segment: lane L adds partials L, L + 32, … in order, then a fixed shuffle tree.
__global__ void __launch_bounds__(kBlockThreads)
    sum_partials_kernel(const float* __restrict__ partials, float* __restrict__ out, std::int64_t num_segments,
                        std::int64_t per_segment) {
  const int lane = tc::lane_id();
  const std::int64_t segment = static_cast<std::int64_t>(blockIdx.x) * kBlockWarps + tc::warp_in_block();
  if (segment >= num_segments) return;
  const float* p = partials + segment * per_segment;
  float s = 0.0f;
  for (std::int64_t j = lane; j < per_segment; j += tc::kWarpSize) s += p[j];
#pragma unroll
  for (int d = tc::kWarpSize / 2; d > 0; d /= 2) s += __shfl_xor_sync(tc::kFullMask, s, d);
  if (lane == 0) out[segment] = s;
}

}  // namespace

cudaError_t launch_grid_reduce_two_pass(const __half* in, float* out, std::int64_t num_segments,
                                        std::int64_t segment_size, cudaStream_t stream) {
  const std::int64_t target = resident_reduce_blocks();
  std::int64_t chunks = 1;
  if (num_segments < target) chunks = std::min(ceil_div(target, num_segments), ceil_div(segment_size, kBlockTileElems));
  if (chunks <= 1) return launch_block_reduce(in, out, num_segments, segment_size, stream);  // block level
  const std::int64_t chunk_elems = round_up(ceil_div(segment_size, chunks), kBlockTileElems);
  chunks = ceil_div(segment_size, chunk_elems);
  tc::TempBuffer<float> partials;
  if (cudaError_t e = partials.allocate(num_segments * chunks, stream); e != cudaSuccess) return e;
  if (cudaError_t e = launch_reduce_chunks(in, partials.get(), num_segments, segment_size, chunks, chunk_elems, stream);
      e != cudaSuccess)
    return e;
  sum_partials_kernel<<<static_cast<unsigned>(ceil_div(num_segments, kBlockWarps)), kBlockThreads, 0, stream>>>(
      partials.get(), out, num_segments, chunks);
  return cudaGetLastError();
}

}  // namespace tcu::detail::device
