// Lesson 1a — Dakkak et al. Alg. 4, block-level reduction on tensor cores: the warps of a block
// reduce their share of the segment (V += P·A per tile, the next round's loads in flight), write
// their partials to shared memory, and after a barrier one warp sums the partials (X·Pᵀ).
// One block per segment (or per chunk of one: 03_grid_reduce_two_pass).
#include "05_block_grid/kernels/block_tile.cuh"
#include "05_block_grid/kernels/launch_block.cuh"
#include "05_block_grid/kernels/launchers.hpp"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::device {
namespace {

__global__ void __launch_bounds__(kBlockThreads, 4)
    block_reduce_chunks_kernel(const __half* __restrict__ in, float* __restrict__ out, std::int64_t num_segments,
                               std::int64_t segment_size, std::int64_t chunks_per_segment, std::int64_t chunk_elems) {
  BlockSmem& sm = block_smem();
  write_block_constants(sm);
  __syncthreads();
  const std::int64_t items = num_segments * chunks_per_segment;
  for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const std::int64_t segment = item / chunks_per_segment, chunk = item % chunks_per_segment;
    const std::int64_t first = chunk * chunk_elems;
    const std::int64_t len = segment_size - first < chunk_elems ? segment_size - first : chunk_elems;
    const float sum = block_reduce_range(sm, in + segment * segment_size + first, len);  // Alg. 4
    if (threadIdx.x == 0) out[item] = sum;
  }
}

}  // namespace

cudaError_t launch_reduce_chunks(const __half* in, float* out, std::int64_t num_segments, std::int64_t segment_size,
                                 std::int64_t chunks_per_segment, std::int64_t chunk_elems, cudaStream_t stream) {
  if (cudaError_t e = allow_block_smem(block_reduce_chunks_kernel); e != cudaSuccess) return e;
  const std::int64_t items = num_segments * chunks_per_segment;
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(block_reduce_chunks_kernel), kBlockThreads,
                                          items, kBlockSmemBytes) * 8;  // several waves: chunks vary in length
  const std::int64_t blocks = items < grid ? items : grid;
  block_reduce_chunks_kernel<<<static_cast<unsigned>(blocks), kBlockThreads, kBlockSmemBytes, stream>>>(
      in, out, num_segments, segment_size, chunks_per_segment, chunk_elems);
  return cudaGetLastError();
}

cudaError_t launch_block_reduce(const __half* in, float* out, std::int64_t num_segments, std::int64_t segment_size,
                                cudaStream_t stream) {
  return launch_reduce_chunks(in, out, num_segments, segment_size, 1, segment_size, stream);
}

}  // namespace tcu::detail::device
