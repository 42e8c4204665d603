// Navarro et al., variant 1 (recurrence): every warp reduces R tiles with the chained MMAs
// (chained_mma_warp.cuh) and writes its partial; the kernel runs again on the partials until one
// value per segment remains (fp16 data → fp32 partials → … → d_out; deterministic). The fp16
// replica (chained_mma_fp16_accumulate) keeps fp16 accumulators and partials, as the paper did,
// and overflows above 65504 (the accuracy study).
#include <vector>

#include "03_tcu_reduction/kernels/chained_mma_warp.cuh"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::reduce {
using namespace tc;  // the shared tensor-core vocabulary: FragA, kTile, split_hi_lo, …

constexpr int kWarps = 8;  // warps per block

// Σ p[first … first + R·256) ∩ [0, len) of fp32 partials: scaled by a power of two (exact) below
// 2^14 (fp16 ends at 65504), each tile split into fp16 hi and lo tiles, the scale undone at the end.
__device__ float chained_warp_sum(const float* p, std::int64_t len, std::int64_t first, int chain_length,
                                  ChainScratch& s, const ChainConstants& k, int lane) {
  float scale = 1.0f, unscale = 1.0f, m = 0.0f;
  for (std::int64_t i = first + lane; i < first + static_cast<std::int64_t>(chain_length) * kTileElems && i < len;
       i += 32)
    m = fmaxf(m, fabsf(p[i]));
#pragma unroll
  for (int o = 16; o >= 1; o >>= 1) m = fmaxf(m, __shfl_xor_sync(kFullMask, m, o));
  if (m > 16384.0f && m <= 3.0e38f) {
    int e = 0;
    frexpf(m, &e);  // m < 2^e
    scale = ldexpf(1.0f, 14 - e);
    unscale = ldexpf(1.0f, e - 14);
  }
  FragAcc c;
  wmma::fill_fragment(c, 0.0f);  // C_0 = 0
  for (int r = 0; r < chain_length; ++r) {
    const std::int64_t t = first + static_cast<std::int64_t>(r) * kTileElems;
    if (t >= len) break;
    alignas(16) __half h[8], l[8];  // the lane's 8 values, scaled and split
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const std::int64_t at = t + lane * 8 + i;
      const HiLo v = split_hi_lo(at < len ? p[at] * scale : 0.0f);
      h[i] = v.hi;
      l[i] = v.lo;
    }
    store_piece(s.hi, Piece{*reinterpret_cast<const uint4*>(h)}, lane);
    store_piece(s.lo, Piece{*reinterpret_cast<const uint4*>(l)}, lane);
    __syncwarp();
    FragBRow mt;
    wmma::load_matrix_sync(mt, s.hi, kTile);
    wmma::mma_sync(c, k.ones_a, mt, c);  // C_r = 1·M_r,hi + C_{r−1}
    wmma::load_matrix_sync(mt, s.lo, kTile);
    wmma::mma_sync(c, k.ones_a, mt, c);  //     + 1·M_r,lo
    __syncwarp();
  }
  return chain_total(c, s, k, lane) * unscale;
}

// Navarro's original: fp16 accumulators and fp16 results (overflows above 65504).
__device__ __half chained_warp_sum_fp16(const __half* p, std::int64_t len, std::int64_t first, int chain_length,
                                        ChainScratch& s, const ChainConstants& k, int lane) {
  FragAccHalf c;
  wmma::fill_fragment(c, __float2half(0.0f));
  for (int r = 0; r < chain_length; ++r) {
    const std::int64_t t = first + static_cast<std::int64_t>(r) * kTileElems;
    if (t >= len) break;
    store_piece(s.tile, load_contiguous<Cache::read_only>(p, len, t, lane), lane);
    __syncwarp();
    FragBRow m;
    wmma::load_matrix_sync(m, s.tile, kTile);
    wmma::mma_sync(c, k.ones_a, m, c);  // C_r = 1·M_r + C_{r−1}, in fp16
    __syncwarp();
  }
  wmma::store_matrix_sync(s.hi, c, kTile, wmma::mem_row_major);  // fp16 already: no split
  __syncwarp();
  FragA a;
  FragAccHalf d;
  wmma::fill_fragment(d, __float2half(0.0f));
  wmma::load_matrix_sync(a, s.hi, kTile);
  wmma::mma_sync(d, a, k.ones_b, d);  // C_{R+1} = C_R·1
  __syncwarp();
  return d.x[0];
}

// One level: item w = (segment, chunk of R·256) → out[w]. InT: __half or float; OutT: float,
// or __half for the fp16-accumulating replica.
template <int kWarpsPerBlock, class InT, class OutT>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
chained_mma_recurrence_kernel(const InT* __restrict__ x, OutT* __restrict__ out, std::int64_t num_segments,
                              std::int64_t segment_size, int chain_length, std::int64_t chunks_per_segment) {
  __shared__ __align__(32) ChainScratch scratch[kWarpsPerBlock];
  ChainScratch& s = scratch[warp_in_block()];
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
      const float total = chained_warp_sum(p, segment_size, first, chain_length, s, k, lane);
      if (lane == 0) out[w] = total;
    }
  }
}

__global__ void halves_to_floats_kernel(const __half* __restrict__ in, float* __restrict__ out, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = __half2float(in[i]);
}

bool chained_config_ok(int chain_length, int block_threads, double tcu_fraction) {
  return chain_length >= 1 && chain_length <= 4096 && block_threads >= 32 && block_threads <= 1024 &&
         block_threads % 32 == 0 && tcu_fraction >= 0.0 && tcu_fraction <= 1.0 &&
         static_cast<std::size_t>(block_threads / 32) * sizeof(ChainScratch) <= 48 * 1024;
}

namespace {

// Level 1 on the data, then levels on the partials until one value per segment is left.
// The fp16 replica keeps fp16 partials, as the paper did, and converts only the end.
cudaError_t run_recurrence(bool fp16, int chain_length, const __half* d_in, float* d_out, std::int64_t num_segments,
                           std::int64_t segment_size, cudaStream_t stream) {
  const std::int64_t warp_chunk = static_cast<std::int64_t>(chain_length) * kTileElems;
  const std::size_t elem = fp16 ? sizeof(__half) : sizeof(float);
  std::vector<void*> buffers;
  auto finish = [&](cudaError_t e) {
    for (void* b : buffers) temp_free(b, stream);
    return e;
  };
  const void* in = d_in;
  std::int64_t len = segment_size;
  for (int level = 0;; ++level) {
    const std::int64_t cps = ceil_div(len, warp_chunk);
    void* out = d_out;
    if (cps > 1 || fp16) {
      void* b = nullptr;
      if (cudaError_t e = temp_alloc(&b, static_cast<std::size_t>(num_segments * cps) * elem, stream);
          e != cudaSuccess)
        return finish(e);
      buffers.push_back(b);
      out = b;
    }
    const int grid = grid_for(ceil_div(num_segments * cps, kWarps), 64 / kWarps);
    if (fp16)
      chained_mma_recurrence_kernel<kWarps, __half, __half><<<grid, kWarps * 32, 0, stream>>>(
          static_cast<const __half*>(in), static_cast<__half*>(out), num_segments, len, chain_length, cps);
    else if (level == 0)
      chained_mma_recurrence_kernel<kWarps, __half, float><<<grid, kWarps * 32, 0, stream>>>(
          d_in, static_cast<float*>(out), num_segments, len, chain_length, cps);
    else
      chained_mma_recurrence_kernel<kWarps, float, float><<<grid, kWarps * 32, 0, stream>>>(
          static_cast<const float*>(in), static_cast<float*>(out), num_segments, len, chain_length, cps);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return finish(e);
    if (cps == 1) {
      if (fp16)  // d_out[i] = float(out[i]): the replica's fp16 results
        halves_to_floats_kernel<<<grid_for(ceil_div(num_segments, 256), 8), 256, 0, stream>>>(
            static_cast<const __half*>(out), d_out, num_segments);
      return finish(cudaGetLastError());
    }
    in = out;
    len = cps;
  }
}

}  // namespace

cudaError_t launch_chained_mma_recurrence(int chain_length, const __half* d_in, float* d_out,
                                          std::int64_t num_segments, std::int64_t segment_size,
                                          cudaStream_t stream) {
  return run_recurrence(false, chain_length, d_in, d_out, num_segments, segment_size, stream);
}

cudaError_t launch_chained_mma_fp16_accumulate(int chain_length, const __half* d_in, float* d_out,
                                               std::int64_t num_segments, std::int64_t segment_size,
                                               cudaStream_t stream) {
  return run_recurrence(true, chain_length, d_in, d_out, num_segments, segment_size, stream);
}

}  // namespace tcu::detail::reduce
