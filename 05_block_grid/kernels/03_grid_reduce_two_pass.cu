// Lesson 2a — Dakkak et al.'s grid-level reduction, two passes. A segment too long for one block
// (one segment: one SM at work) is cut into chunks of whole block tiles (tc::plan_chunks): one
// wave of them (as many as the GPU holds blocks at once), or, where a wave's share is longer than
// kLongChunk, up to kChunkWaves waves of chunks that long, so that a block that finishes early
// takes the next chunk instead of the grid waiting for the slowest SM. First pass: lesson 1a's
// kernel with a chunk instead of a segment as the work item, each block reducing its chunk with
// Alg. 4 into a partial.
// Second pass: each segment's partials added in a fixed order (tc::sum_partials). When the
// segments alone fill the GPU, the plan is one chunk per segment and there is no second pass.
// Deterministic: the chunks and the order of the sums depend on the sizes and the GPU only.
#include "common/tensor_core/block_reduce.cuh"
#include "common/tensor_core/chunks.hpp"

namespace tcu::detail::device {
namespace {

// From the whole array at n = 2^26 … 2^28 on the H100: one wave of equal chunks ends with its
// slowest SM, 8 waves of 2^14- or 2^15-element chunks pay each block's start and end too often;
// 2 to 4 waves of 2^17-element chunks are 1-2 % faster than either.
constexpr std::int64_t kChunkWaves = 4, kLongChunk = 8 * tc::kBlockTileElems;

__global__ void __launch_bounds__(tc::kBlockThreads, 4)
    chunk_reduce_kernel(const __half* __restrict__ in, float* __restrict__ partials, std::int64_t num_segments,
                        std::int64_t segment_size, tc::ChunkPlan plan) {
  tc::BlockSmem& sm = tc::block_smem();
  tc::write_block_constants(sm);
  __syncthreads();
  for (std::int64_t item = blockIdx.x; item < num_segments * plan.chunks_per_segment; item += gridDim.x) {
    const tc::Chunk c = tc::chunk_of(item, segment_size, plan);    // chunk item % cps of segment item / cps
    const float sum = tc::block_reduce_range(sm, in + c.first, c.len);  // Alg. 4 on the chunk
    if (threadIdx.x == 0) partials[item] = sum;
  }
}

}  // namespace

// The first pass alone: out[i] = the sum of chunk i (also the tile totals of the three-kernel scan).
cudaError_t launch_reduce_chunks(const __half* in, float* out, std::int64_t num_segments, std::int64_t segment_size,
                                 std::int64_t chunks_per_segment, std::int64_t chunk_elems, cudaStream_t stream) {
  if (cudaError_t e = tc::allow_block_smem(chunk_reduce_kernel); e != cudaSuccess) return e;
  const std::int64_t items = num_segments * chunks_per_segment;
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(chunk_reduce_kernel), tc::kBlockThreads,
                                          items, tc::kBlockSmemBytes) * 8;  // several waves: chunks vary in length
  const std::int64_t blocks = items < grid ? items : grid;
  chunk_reduce_kernel<<<static_cast<unsigned>(blocks), tc::kBlockThreads, tc::kBlockSmemBytes, stream>>>(
      in, out, num_segments, segment_size, tc::ChunkPlan{chunk_elems, chunks_per_segment});
  return cudaGetLastError();
}

cudaError_t launch_grid_reduce_two_pass(const __half* in, float* out, std::int64_t num_segments,
                                        std::int64_t segment_size, cudaStream_t stream) {
  if (cudaError_t e = tc::allow_block_smem(chunk_reduce_kernel); e != cudaSuccess) return e;
  const int resident = tc::resident_grid_size(reinterpret_cast<const void*>(chunk_reduce_kernel),
                                              tc::kBlockThreads, std::int64_t(1) << 40, tc::kBlockSmemBytes);
  // One wave: resident / num_segments chunks per segment (rounded down), at least a block tile each.
  const std::int64_t wave = num_segments < resident ? resident / num_segments * num_segments : resident;
  const tc::ChunkPlan plan =
      num_segments * segment_size / resident < kLongChunk
          ? tc::plan_chunks(num_segments, segment_size, tc::kBlockTileElems, wave, tc::kBlockTileElems)
          : tc::plan_chunks(num_segments, segment_size, tc::kBlockTileElems, kChunkWaves * resident, kLongChunk);
  return tc::run_chunks(out, num_segments, plan, stream, [&](float* partials, const tc::ChunkPlan& p) {
    return launch_reduce_chunks(in, partials, num_segments, segment_size, p.chunks_per_segment, p.chunk, stream);
  });
}

}  // namespace tcu::detail::device
