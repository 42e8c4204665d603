// Navarro et al., variant 1 (recurrence): every warp reduces R tiles with the chained MMAs
// (chained_mma_warp.cuh) and writes its partial; the kernel is launched again on the partials
// until one value per segment remains. Deterministic (no atomics). The launcher runs the
// levels: fp16 data → fp32 partials → … → d_out. The fp16 variant (chained_mma_fp16_accumulate)
// keeps fp16 partials, as the paper did, and overflows on uniform inputs (the accuracy study
// shows it).
#include <vector>

#include "03_tcu_reduction/kernels/chained_mma_warp.cuh"
#include "03_tcu_reduction/kernels/launchers.hpp"
#include "03_tcu_reduction/kernels/second_pass.hpp"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::reduce {

// One level: item w = (segment, chunk of R·256) → out[w]. InT: __half or float; OutT: float,
// or __half for the fp16-accumulating replica.
template <int kWarpsPerBlock, class InT, class OutT>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
chained_mma_recurrence_kernel(const InT* __restrict__ x, OutT* __restrict__ out, std::int64_t num_segments,
                              std::int64_t segment_size, int chain_length, std::int64_t chunks_per_segment) {
  __shared__ __align__(32) WarpScratch scratch[kWarpsPerBlock];
  WarpScratch& s = scratch[warp_in_block()];
  const int lane = lane_id();
  ChainConstants k;
  load_chain_constants(k, s.tile, lane);
  const std::int64_t chunk = static_cast<std::int64_t>(chain_length) * kTileElems;
  const std::int64_t items = num_segments * chunks_per_segment;
  for (std::int64_t w = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + warp_in_block(); w < items;
       w += static_cast<std::int64_t>(gridDim.x) * kWarpsPerBlock) {
    const std::int64_t seg = w / chunks_per_segment, first = (w % chunks_per_segment) * chunk;
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

bool chained_config_ok(const ChainedMmaConfig& c) {
  return c.chain_length >= 1 && c.chain_length <= 4096 && c.block_threads >= 32 && c.block_threads <= 1024 &&
         c.block_threads % 32 == 0 && c.tcu_fraction >= 0.0 && c.tcu_fraction <= 1.0 &&
         static_cast<std::size_t>(c.block_threads / 32) * sizeof(WarpScratch) <= 48 * 1024;
}

namespace {

// Level 1 on the data, then levels on the partials until one value per segment is left.
// The fp16 replica keeps fp16 partials, as the paper did, and converts only the end.
cudaError_t run_recurrence(bool fp16, const ChainedMmaConfig& cfg, const __half* d_in, float* d_out,
                           std::int64_t num_segments, std::int64_t segment_size, cudaStream_t stream) {
  const std::int64_t warp_chunk = chained_warp_chunk(cfg);
  const std::size_t elem = fp16 ? sizeof(__half) : sizeof(float);
  std::vector<void*> buffers;
  auto finish = [&](cudaError_t e) {
    for (void* b : buffers) tc::temp_free(b, stream);
    return e;
  };
  const void* in = d_in;
  std::int64_t len = segment_size;
  for (int level = 0;; ++level) {
    const std::int64_t cps = ceil_div(len, warp_chunk);
    void* out = d_out;
    if (cps > 1 || fp16) {
      void* b = nullptr;
      if (cudaError_t e = tc::temp_alloc(&b, static_cast<std::size_t>(num_segments * cps) * elem, stream);
          e != cudaSuccess)
        return finish(e);
      buffers.push_back(b);
      out = b;
    }
    const int grid = tc::grid_for(ceil_div(num_segments * cps, kWarps), 64 / kWarps);
    if (fp16)
      chained_mma_recurrence_kernel<kWarps, __half, __half><<<grid, kThreads, 0, stream>>>(
          static_cast<const __half*>(in), static_cast<__half*>(out), num_segments, len, cfg.chain_length, cps);
    else if (level == 0)
      chained_mma_recurrence_kernel<kWarps, __half, float><<<grid, kThreads, 0, stream>>>(
          d_in, static_cast<float*>(out), num_segments, len, cfg.chain_length, cps);
    else
      chained_mma_recurrence_kernel<kWarps, float, float><<<grid, kThreads, 0, stream>>>(
          static_cast<const float*>(in), static_cast<float*>(out), num_segments, len, cfg.chain_length, cps);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return finish(e);
    if (cps == 1)
      return finish(fp16 ? halves_to_floats(static_cast<const __half*>(out), d_out, num_segments, stream)
                         : cudaSuccess);
    in = out;
    len = cps;
  }
}

}  // namespace

cudaError_t launch_chained_mma_recurrence(const ChainedMmaConfig& config, const __half* d_in, float* d_out,
                                          std::int64_t num_segments, std::int64_t segment_size,
                                          cudaStream_t stream) {
  return run_recurrence(false, config, d_in, d_out, num_segments, segment_size, stream);
}

cudaError_t launch_chained_mma_fp16_accumulate(const ChainedMmaConfig& config, const __half* d_in, float* d_out,
                                               std::int64_t num_segments, std::int64_t segment_size,
                                               cudaStream_t stream) {
  return run_recurrence(true, config, d_in, d_out, num_segments, segment_size, stream);
}

}  // namespace tcu::detail::reduce
