// Navarro et al., variant 3 (split): in one kernel, a fraction f of the block items reduce
// with tensor cores (chained MMAs with R = 1, chained_mma_warp.cuh), the others with a plain
// shuffle reduction; one atomicAdd per block, as in the single pass. Slowest in the paper: the
// two halves of the GPU do not overlap as hoped, and the shuffle half sets the pace.
#include <cmath>

#include "03_tcu_reduction/kernels/chained_mma_warp.cuh"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::reduce {
using namespace tc;  // the shared tensor-core vocabulary: FragA, kTile, load_contiguous, …

constexpr int kSplitWarpsMax = 32;

// Item b uses the tensor cores when (b mod 100) < tcu_percent.
__global__ void chained_mma_split_kernel(const __half* __restrict__ x, float* __restrict__ out,
                                         std::int64_t num_segments, std::int64_t segment_size,
                                         std::int64_t blocks_per_segment, int tcu_percent) {
  extern __shared__ __align__(32) unsigned char dyn[];
  __shared__ float warp_total[kSplitWarpsMax];
  const int warps = static_cast<int>(blockDim.x >> 5), lane = lane_id(), wib = warp_in_block();
  ChainScratch& s = reinterpret_cast<ChainScratch*>(dyn)[wib];
  ChainConstants k;
  load_chain_constants(k, s.tile, lane);
  const std::int64_t items = num_segments * blocks_per_segment;
  for (std::int64_t b = blockIdx.x; b < items; b += gridDim.x) {
    const std::int64_t seg = b / blocks_per_segment;
    const std::int64_t first = (b % blocks_per_segment) * warps * kTileElems + wib * kTileElems;
    const __half* p = x + seg * segment_size;
    float mine;
    if (static_cast<int>(b % 100) < tcu_percent) {
      mine = chained_warp_sum(p, segment_size, first, 1, s, k, lane);  // TCU, R = 1
    } else {
      mine = tc::piece_sum(tc::load_contiguous<tc::Cache::read_only>(p, segment_size, first, lane));  // shuffles
#pragma unroll
      for (int o = 16; o >= 1; o >>= 1) mine += __shfl_xor_sync(kFullMask, mine, o);
    }
    block_atomic_add(mine, warp_total, out + seg, wib, lane);
  }
}

// Block items per segment (R = 1: a block takes warps tiles).
std::int64_t chained_split_blocks(std::int64_t s, int block_threads) {
  return ceil_div(s, std::int64_t(block_threads / 32) * kTileElems);
}

cudaError_t launch_chained_mma_split(int block_threads, double tcu_fraction, const __half* d_in, float* d_out,
                                     std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream) {
  const std::size_t dyn_smem = static_cast<std::size_t>(block_threads / 32) * sizeof(ChainScratch);
  const std::int64_t bps = chained_split_blocks(segment_size, block_threads);
  const int pct = static_cast<int>(std::lround(tcu_fraction * 100.0));
  if (cudaError_t e = cudaMemsetAsync(d_out, 0, num_segments * sizeof(float), stream); e != cudaSuccess) return e;
  chained_mma_split_kernel<<<grid_for(num_segments * bps, 2048 / block_threads), block_threads, dyn_smem, stream>>>(
      d_in, d_out, num_segments, segment_size, bps, pct);
  return cudaGetLastError();
}

}  // namespace tcu::detail::reduce
