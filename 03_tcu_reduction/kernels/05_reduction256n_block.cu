// Dakkak et al. Alg. 4, block-level Reduction256N, a block per segment (past 2^18 per chunk, plus
// a second pass): warp partials to shared memory, a barrier (the paper's code lacks it: erratum),
// warp 0 sums them with X·Pᵀ (block_reduce.cuh).
#include "common/tensor_core/block_reduce.cuh"
#include "common/tensor_core/chunks.hpp"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::reduce {
using namespace tc;  // the shared tensor-core vocabulary: ReduceSmem, warp_range_partial, …

constexpr std::int64_t kBlockChunk = std::int64_t(1) << 18;  // past it: equal chunks of whole block tiles

__global__ void __launch_bounds__(kBlockThreads, 5)  // 5 blocks per SM (<= 48 registers) hide each one's barriers
reduction256n_block_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                           std::int64_t segment_size, ChunkPlan plan) {
  ReduceSmem& sm = block_smem<ReduceSmem>();  // Alg. 4 alone: half rounds staged (block.cuh)
  write_block_constants(sm);                   // Alg. 4: Initialize P
  __syncthreads();
  const int warp = warp_in_block(), lane = lane_id();
  for (std::int64_t item = blockIdx.x; item < num_segments * plan.chunks_per_segment; item += gridDim.x) {
    const Chunk c = chunk_of(item, segment_size, plan);  // a whole segment, or a chunk of a long one
    // BEGIN EXERCISE 03.5 Block level (Alg. 4): warp partials, one barrier, warp 0 sums them
    // HINT: Each warp's tc::warp_range_partial(sm, x + c.first, c.len) to sm.warp_total[warp] (lane
    // HINT: 0); __syncthreads(); warp 0: tc::warp_sum_partials(sm, sm.warp[0], lane) (X·Pᵀ) to
    // HINT: out[item]; a second barrier before the next item reuses warp_total (racecheck finds both).
    // SIZE: 8 to 10 lines
    const float partial = warp_range_partial(sm, x + c.first, c.len);  // each warp: V = Σ P·A
    if (lane == 0) sm.warp_total[warp] = partial;
    __syncthreads();  // erratum: the barrier the published block kernel lacks
    if (warp == 0) {
      const float total = warp_sum_partials(sm, sm.warp[0], lane);  // R = X·Pᵀ
      if (lane == 0) out[item] = total;
    }
    __syncthreads();  // warp_total and the scratch are reused by the next item
    // STUB: (void)sm; (void)c; (void)warp; (void)lane; (void)out;
    // END EXERCISE
  }
}

ChunkPlan split_for_blocks(std::int64_t segment_size) {
  if (segment_size <= kBlockChunk) return ChunkPlan{segment_size, 1};
  return plan_chunks(1, segment_size, kBlockTileElems, segment_size, kBlockChunk);
}

cudaError_t launch_reduction256n_block(const __half* d_in, float* d_out, std::int64_t num_segments,
                                       std::int64_t segment_size, cudaStream_t stream) {
  // Resident blocks only (one wave): a second wave's last blocks would run alone, a tail.
  if (cudaError_t e = allow_block_smem<ReduceSmem>(reduction256n_block_kernel); e != cudaSuccess) return e;
  const auto launch = [&](float* out, const ChunkPlan& plan) {
    const int grid = resident_grid_size(reinterpret_cast<const void*>(reduction256n_block_kernel), kBlockThreads,
                                        num_segments * plan.chunks_per_segment, kReduceSmemBytes);
    reduction256n_block_kernel<<<grid, kBlockThreads, kReduceSmemBytes, stream>>>(d_in, out, num_segments,
                                                                                  segment_size, plan);
    return cudaGetLastError();
  };
  return run_chunks(d_out, num_segments, split_for_blocks(segment_size), stream, launch);
}

}  // namespace tcu::detail::reduce
