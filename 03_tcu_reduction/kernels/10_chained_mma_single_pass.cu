// Navarro et al., variant 2 (single pass): every warp reduces R tiles with the chained MMAs
// (chained_mma_warp.cuh); warp 0 of the block adds the warps' results with shuffles; one
// atomicAdd per block into the (zeroed) fp32 result of the segment. Fastest in the paper
// (B = 128, R = 4 on a V100). The float atomics make the order of the last additions, hence
// the last bits, vary.
#include "03_tcu_reduction/kernels/chained_mma_warp.cuh"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::reduce {
using namespace tc;  // the shared tensor-core vocabulary: FragA, kTile, load_contiguous, …

constexpr int kMaxChainWarps = 32;  // block sizes up to 1024 threads

// One block item = (segment, chunk of warps·R·256 elements).
__global__ void chained_mma_single_pass_kernel(const __half* __restrict__ x, float* __restrict__ out,
                                               std::int64_t num_segments, std::int64_t segment_size,
                                               int chain_length, std::int64_t blocks_per_segment) {
  extern __shared__ __align__(32) unsigned char dyn[];  // ChainScratch per warp
  __shared__ float warp_total[kMaxChainWarps];
  const int warps = static_cast<int>(blockDim.x >> 5), lane = lane_id(), wib = warp_in_block();
  ChainScratch& s = reinterpret_cast<ChainScratch*>(dyn)[wib];
  ChainConstants k;
  load_chain_constants(k, s.tile, lane);
  const std::int64_t warp_chunk = static_cast<std::int64_t>(chain_length) * kTileElems;
  const std::int64_t items = num_segments * blocks_per_segment;
  for (std::int64_t b = blockIdx.x; b < items; b += gridDim.x) {
    const std::int64_t seg = b / blocks_per_segment;
    const std::int64_t first = (b % blocks_per_segment) * warps * warp_chunk + wib * warp_chunk;
    const float mine = chained_warp_sum(x + seg * segment_size, segment_size, first, chain_length, s, k, lane);
    block_atomic_add(mine, warp_total, out + seg, wib, lane);
  }
}

// Block items per segment: a block chains warps · R tiles.
std::int64_t chained_single_pass_blocks(std::int64_t s, int chain_length, int block_threads) {
  return ceil_div(s, std::int64_t(block_threads / 32) * chain_length * kTileElems);
}

cudaError_t launch_chained_mma_single_pass(int chain_length, int block_threads, const __half* d_in, float* d_out,
                                           std::int64_t num_segments, std::int64_t segment_size,
                                           cudaStream_t stream) {
  const std::size_t dyn_smem = static_cast<std::size_t>(block_threads / 32) * sizeof(ChainScratch);
  const std::int64_t bps = chained_single_pass_blocks(segment_size, chain_length, block_threads);
  if (cudaError_t e = cudaMemsetAsync(d_out, 0, num_segments * sizeof(float), stream); e != cudaSuccess) return e;
  chained_mma_single_pass_kernel<<<grid_for(num_segments * bps, 2048 / block_threads), block_threads, dyn_smem,
                                   stream>>>(d_in, d_out, num_segments, segment_size, chain_length, bps);
  return cudaGetLastError();
}

}  // namespace tcu::detail::reduce
