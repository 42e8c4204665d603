#pragma once
// The warp step of every chained-MMA variant (Navarro et al.): a chain of R MMAs over R
// consecutive 256-element tiles M_1 … M_R,
//     C_r = 1·M_r + C_{r−1}        every row of C = the column sums so far
// then one more product with the all-ones matrix,
//     C_{R+1} = C_R·1              every element of C = the total
// so any lane reads the result from element 0 of its fragment: no fragment layout needed.
//
//     1·M:  [1 … 1]   [m0   … m15 ]   [c0 … c15]         C·1:  [c0 … c15]   [1 … 1]   [Σc … Σc]
//           [1 … 1] · [  …        ] = [c0 … c15]               [c0 … c15] · [1 … 1] = [Σc … Σc]
//           [  …  ]   [m240 … m255]   [   …    ]               [   …    ]   [  …  ]   [   …   ]
//
// C_R is an fp32 accumulator; as an operand it is split into two fp16 halves
// (tc::mma_split_operand; where it does not split, row 0 is added with fp32 shuffles).
#include <cuda_fp16.h>

#include <cstdint>

#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/staging.cuh"

namespace tcu::detail::reduce {

// Per-warp shared memory of a chained warp (32-byte aligned members).
struct ChainScratch {
  __half tile[tc::kTileElems];  // a staged tile, or a constant matrix while it is loaded
  float v[tc::kTileElems];      // C_R stored to become an operand
  __half hi[tc::kTileElems];    // its hi/lo split (or a split fp32 tile, 09)
  __half lo[tc::kTileElems];
};

// The all-ones matrix as both operands.
struct ChainConstants {
  tc::FragA ones_a;
  tc::FragBRow ones_b;
};
__device__ __forceinline__ void load_chain_constants(ChainConstants& c, __half* scratch, int lane) {
  tc::load_constant(c.ones_a, tc::ConstantMatrix::ones, scratch, lane);
  tc::load_constant(c.ones_b, tc::ConstantMatrix::ones, scratch, lane);
}

// C_{R+1} = C_R·1 = hi·1 + lo·1: the total, in every lane.
__device__ __forceinline__ float chain_total(const tc::FragAcc& c, ChainScratch& s, const ChainConstants& k,
                                             int lane) {
  nvcuda::wmma::store_matrix_sync(s.v, c, tc::kTile, nvcuda::wmma::mem_row_major);
  __syncwarp();
  tc::FragAcc d;
  nvcuda::wmma::fill_fragment(d, 0.0f);
  if (!tc::mma_split_operand(d, s.v, k.ones_b, s.hi, s.lo, lane)) {  // does not split (> 2^15): in fp32
    const float sum = tc::row16_sum(s.v, lane);  // row 0 = the column sums
    __syncwarp();                                // s.v may be overwritten next
    return sum;
  }
  return d.x[0];  // every element is the total
}

// Σ p[first … first + R·256) ∩ [0, len) of fp16 data, by one warp, in every lane (fp32).
__device__ inline float chained_warp_sum(const __half* p, std::int64_t len, std::int64_t first,
                                                  int chain_length, ChainScratch& s, const ChainConstants& k,
                                                  int lane) {
  tc::FragAcc c;
  nvcuda::wmma::fill_fragment(c, 0.0f);  // C_0 = 0
  for (int r = 0; r < chain_length; ++r) {
    const std::int64_t t = first + static_cast<std::int64_t>(r) * tc::kTileElems;
    if (t >= len) break;
    tc::store_piece(s.tile, tc::load_contiguous<tc::Cache::read_only>(p, len, t, lane), lane);
    __syncwarp();
    tc::FragBRow m;
    nvcuda::wmma::load_matrix_sync(m, s.tile, tc::kTile);
    nvcuda::wmma::mma_sync(c, k.ones_a, m, c);  // C_r = 1·M_r + C_{r−1}
    __syncwarp();
  }
  return chain_total(c, s, k, lane);
}

// Block step of the single-pass and split variants: every warp's `mine` into shared memory;
// after the barrier warp 0 adds them with shuffles and makes the block's one atomicAdd.
__device__ __forceinline__ void block_atomic_add(float mine, float* warp_total, float* out, int wib, int lane) {
  const int warps = static_cast<int>(blockDim.x >> 5);
  if (lane == 0) warp_total[wib] = mine;
  __syncthreads();
  if (wib == 0) {
    float t = (lane < warps) ? warp_total[lane] : 0.0f;
#pragma unroll
    for (int o = 16; o >= 1; o >>= 1) t += __shfl_xor_sync(tc::kFullMask, t, o);
    if (lane == 0) atomicAdd(out, t);  // one atomic per block
  }
  __syncthreads();  // warp_total is reused by the next item
}

}  // namespace tcu::detail::reduce
