#pragma once
// Navarro et al., variant 3 (split): in one kernel, a fraction f of the block items reduce
// with tensor cores (chained MMAs with R = 1), the others with a plain shuffle reduction;
// one atomicAdd per block, as in the single pass. Slowest in the paper: the two halves of
// the GPU do not overlap as hoped, and the shuffle half sets the pace.
#include "03_tcu_reduction/kernels/chained_mma_warp.cuh"

namespace tcu::reduction {

constexpr int kSplitWarpsMax = 32;

// Item b uses the tensor cores when (b mod 100) < tcu_percent.
__global__ void chained_mma_split_kernel(const __half* __restrict__ x, float* __restrict__ out, long long num_segments,
                                         long long segment_size, long long blocks_per_segment, int tcu_percent) {
  extern __shared__ __align__(32) unsigned char dyn[];
  __shared__ float warp_total[kSplitWarpsMax];
  const int warps = static_cast<int>(blockDim.x >> 5), lane = lane_id(), wib = warp_in_block();
  WarpScratch& s = reinterpret_cast<WarpScratch*>(dyn)[wib];
  ChainConstants k;
  load_chain_constants(k, s.tile, lane);
  const long long items = num_segments * blocks_per_segment;
  for (long long b = blockIdx.x; b < items; b += gridDim.x) {
    const long long seg = b / blocks_per_segment;
    const long long first = (b % blocks_per_segment) * warps * kTileElems + wib * kTileElems;
    const __half* p = x + seg * segment_size;
    float mine;
    if (static_cast<int>(b % 100) < tcu_percent) {
      mine = chained_warp_sum<__half>(p, segment_size, first, 1, s, k, lane);  // TCU, R = 1
    } else {
      mine = staging::piece_sum(staging::load_contiguous(p, segment_size, first, lane));  // shuffles
#pragma unroll
      for (int o = 16; o >= 1; o >>= 1) mine += __shfl_xor_sync(kFullMask, mine, o);
    }
    block_atomic_add(mine, warp_total, out + seg, wib, lane);
  }
}

}  // namespace tcu::reduction
