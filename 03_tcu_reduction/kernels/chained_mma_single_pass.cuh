#pragma once
// Navarro et al., variant 2 (single pass): every warp reduces R tiles with the chained MMAs;
// warp 0 of the block adds the warps' results with shuffles; one atomicAdd per block into
// the (zeroed) fp32 result of the segment. Fastest in the paper (B = 128, R = 4 on a V100).
// The float atomics make the order of the last additions, hence the last bits, vary.
#include "03_tcu_reduction/kernels/chained_mma_warp.cuh"

namespace tcu::reduction {

constexpr int kMaxChainWarps = 32;  // block sizes up to 1024 threads

// One block item = (segment, chunk of warps·R·256 elements).
__global__ void chained_mma_single_pass_kernel(const __half* __restrict__ x, float* __restrict__ out,
                                               long long num_segments, long long segment_size, int chain_length,
                                               long long blocks_per_segment) {
  extern __shared__ __align__(32) unsigned char dyn[];  // WarpScratch per warp
  __shared__ float warp_total[kMaxChainWarps];
  const int warps = static_cast<int>(blockDim.x >> 5), lane = lane_id(), wib = warp_in_block();
  WarpScratch& s = reinterpret_cast<WarpScratch*>(dyn)[wib];
  ChainConstants k;
  load_chain_constants(k, s.tile, lane);
  const long long warp_chunk = static_cast<long long>(chain_length) * kTileElems;
  const long long items = num_segments * blocks_per_segment;
  for (long long b = blockIdx.x; b < items; b += gridDim.x) {
    const long long seg = b / blocks_per_segment;
    const long long first = (b % blocks_per_segment) * warps * warp_chunk + wib * warp_chunk;
    const float mine = chained_warp_sum<__half>(x + seg * segment_size, segment_size, first, chain_length, s, k, lane);
    block_atomic_add(mine, warp_total, out + seg, wib, lane);
  }
}

}  // namespace tcu::reduction
