// Reduction256 (Dakkak et al. §4.1): one segment of 256 is one tile A (row-major).
// V = P·A puts the column sums in row 0; R = V·Pᵀ sums row 0 into R[0][0].
//
//   P·A:  [1 … 1]   [a0   … a15 ]     [c0 c1 … c15]        V·Pᵀ: [c0 … c15]   [1 0 … 0]     [Σc 0 … 0]
//         [0 … 0] · [a16  … a31 ]  =  [ 0  0 …  0 ]              [ 0 …  0 ] · [1 0 … 0]  =  [ 0 0 … 0]
//         [  …  ]   [    …      ]     [     …     ]              [   …    ]   [  …    ]     [   …    ]
//         [0 … 0]   [a240 … a255]     [ 0  0 …  0 ]                           [1 0 … 0]
//
// V is an accumulator and must become an operand: it goes through shared memory (WMMA has no
// cast between fragment kinds), split into two fp16 halves to keep fp32 accuracy (collapse.cuh).
// Segments shorter than 256 are zero-padded by the staging.
#include "03_tcu_reduction/kernels/collapse.cuh"
#include "03_tcu_reduction/kernels/launchers.hpp"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::reduce {

template <int kWarpsPerBlock, int kLoads>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
reduction256_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                    std::int64_t segment_size) {
  __shared__ __align__(32) WarpScratch scratch[kWarpsPerBlock];
  __shared__ __align__(32) __half tiles[kWarpsPerBlock][kLoads][kTileElems];
  WarpScratch& s = scratch[warp_in_block()];
  const int lane = lane_id();

  FragA p;
  FragBRow pt;
  init_p_pt(p, pt, s, lane);

  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + warp_in_block()) * kLoads;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kWarpsPerBlock * kLoads;
  for (std::int64_t s0 = warp; s0 < num_segments; s0 += stride) {
    tc::Piece piece[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k)
      piece[k] = (s0 + k < num_segments)
                     ? tc::load_contiguous<tc::Cache::read_only>(x + (s0 + k) * segment_size, segment_size, 0, lane)
                     : tc::zero_piece();
#pragma unroll
    for (int k = 0; k < kLoads; ++k) tc::store_piece(tiles[warp_in_block()][k], piece[k], lane);
    __syncwarp();
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      if (s0 + k >= num_segments) break;
      FragBRow a;
      FragAcc v;
      wmma::load_matrix_sync(a, tiles[warp_in_block()][k], kTile);
      wmma::fill_fragment(v, 0.0f);
      wmma::mma_sync(v, p, a, v);                              // V = P·A
      const float total = store_and_collapse(s, v, pt, lane);  // R = V·Pᵀ
      if (lane == 0) out[s0 + k] = total;
    }
  }
}

cudaError_t launch_reduction256(const __half* d_in, float* d_out, std::int64_t num_segments,
                                std::int64_t segment_size, cudaStream_t stream) {
  reduction256_kernel<kWarps, kInFlight><<<tc::grid_for(ceil_div(num_segments, kWarps * kInFlight), 6), kThreads, 0,
                                           stream>>>(d_in, d_out, num_segments, segment_size);
  return cudaGetLastError();
}

}  // namespace tcu::detail::reduce
