// Lesson 1a — the block level of a reduction, Dakkak et al. Alg. 4 on tensor cores: one block
// per segment. Inside tc::block_reduce_range (common/tensor_core/block_reduce.cuh) every warp
// reduces its rounds of the segment (V += P·A per tile, the next round's loads in flight) to a
// partial in shared memory, a barrier, then one warp sums the partials (X·Pᵀ). Chapter 03's
// lesson 05 writes those steps out one by one; here the block level is a building block.
#include "common/tensor_core/block_reduce.cuh"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/chunks.hpp"

namespace tcu::detail::device {
namespace {

__global__ void __launch_bounds__(tc::kBlockThreads, 4)
    block_reduce_kernel(const __half* __restrict__ in, float* __restrict__ out, std::int64_t num_segments,
                        std::int64_t segment_size, tc::ChunkPlan plan) {
  tc::BlockSmem& sm = tc::block_smem();
  tc::write_block_constants(sm);  // P (and U) in shared memory
  __syncthreads();
  // Work item i = segment i: a plan of one chunk per segment (lesson 2a's first pass is this
  // loop with chunks of long segments).
  for (std::int64_t item = blockIdx.x; item < num_segments * plan.chunks_per_segment; item += gridDim.x) {
    const tc::Chunk c = tc::chunk_of(item, segment_size, plan);
    const float sum = tc::block_reduce_range(sm, in + c.first, c.len);  // Alg. 4
    if (threadIdx.x == 0) out[item] = sum;
  }
}

}  // namespace

cudaError_t launch_block_reduce(const __half* in, float* out, std::int64_t num_segments, std::int64_t segment_size,
                                cudaStream_t stream) {
  if (cudaError_t e = tc::allow_block_smem(block_reduce_kernel); e != cudaSuccess) return e;
  // Several waves of blocks: a block that finishes a short segment takes the next one.
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(block_reduce_kernel), tc::kBlockThreads,
                                          num_segments, tc::kBlockSmemBytes) * 8;
  const std::int64_t blocks = num_segments < grid ? num_segments : grid;
  block_reduce_kernel<<<static_cast<unsigned>(blocks), tc::kBlockThreads, tc::kBlockSmemBytes, stream>>>(
      in, out, num_segments, segment_size, tc::ChunkPlan{segment_size, 1});
  return cudaGetLastError();
}

}  // namespace tcu::detail::device
