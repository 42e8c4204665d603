#pragma once
// Navarro et al., variant 1 (recurrence): every warp reduces R tiles with the chained MMAs and
// writes its partial; the kernel is launched again on the partials until one value per
// segment remains. Deterministic (no atomics). The launcher (reduce_chained.cu) runs the
// levels: fp16 data → fp32 partials → … → d_out. The fp16 variant keeps fp16 partials, as the
// paper did, and overflows on uniform inputs (the accuracy study shows it).
#include "03_tcu_reduction/kernels/chained_mma_warp.cuh"

namespace tcu::reduction {

// One level: item w = (segment, chunk of R·256) → out[w]. InT: __half or float; OutT: float,
// or __half for the fp16-accumulating replica.
template <int kWarps, class InT, class OutT>
__global__ void __launch_bounds__(kWarps * 32)
chained_mma_recurrence_kernel(const InT* __restrict__ x, OutT* __restrict__ out, long long num_segments,
                              long long segment_size, int chain_length, long long chunks_per_segment) {
  __shared__ __align__(32) WarpScratch scratch[kWarps];
  WarpScratch& s = scratch[warp_in_block()];
  const int lane = lane_id();
  ChainConstants k;
  load_chain_constants(k, s.tile, lane);
  const long long chunk = static_cast<long long>(chain_length) * kTileElems;
  const long long items = num_segments * chunks_per_segment;
  for (long long w = static_cast<long long>(blockIdx.x) * kWarps + warp_in_block(); w < items;
       w += static_cast<long long>(gridDim.x) * kWarps) {
    const long long seg = w / chunks_per_segment, first = (w % chunks_per_segment) * chunk;
    const InT* p = x + seg * segment_size;
    if constexpr (sizeof(OutT) == 2) {
      static_assert(sizeof(InT) == 2, "the fp16 replica reads fp16");
      const __half total = chained_warp_sum_fp16(p, segment_size, first, chain_length, s, k, lane);
      if (lane == 0) out[w] = total;
    } else {
      const float total = chained_warp_sum<InT>(p, segment_size, first, chain_length, s, k, lane);
      if (lane == 0) out[w] = total;
    }
  }
}

}  // namespace tcu::reduction
