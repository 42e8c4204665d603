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
// The input may be fp16 (the data) or fp32 (the partials of the recurrence: each tile is then
// split into hi and lo tiles, two MMAs). chained_warp_sum_fp16 replicates the paper's fp16
// accumulators (and their overflow above 65504) for the accuracy study.
#include "03_tcu_reduction/kernels/collapse.cuh"
#include "common/tensor_core/fragments.cuh"

namespace tcu::detail::reduce {

// The constant fragments of a chained warp.
struct ChainConstants {
  FragA ones_a;
  FragBRow ones_b;
};

__device__ __forceinline__ void load_chain_constants(ChainConstants& c, __half* scratch, int lane) {
  tc::load_constant(c.ones_a, ConstantMatrix::ones, scratch, lane);
  tc::load_constant(c.ones_b, ConstantMatrix::ones, scratch, lane);
}

// 8 fp32 values p[first + 8·lane …] times `scale`, zeros at and past len, split into fp16 hi
// and lo pieces (tc::split_hi_lo; the caller's scale keeps every value within the split's
// 2^15, see chained_warp_sum).
__device__ __forceinline__ void load_float_piece_split(const float* p, std::int64_t len, std::int64_t first, int lane,
                                                       float scale, tc::Piece& hi, tc::Piece& lo) {
  alignas(16) __half h[8];
  alignas(16) __half l[8];
  const std::int64_t at = first + lane * 8;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const tc::HiLo s = tc::split_hi_lo((at + i < len) ? p[at + i] * scale : 0.0f);
    h[i] = s.hi;
    l[i] = s.lo;
  }
  hi.v = *reinterpret_cast<const uint4*>(h);
  lo.v = *reinterpret_cast<const uint4*>(l);
}

// Σ p[first … first + R·256) ∩ [0, len), by one warp, in every lane. fp32 accumulation.
template <class InT>
__device__ float chained_warp_sum(const InT* p, std::int64_t len, std::int64_t first, int chain_length, WarpScratch& s,
                                  const ChainConstants& k, int lane) {
  // fp32 inputs (partials) may exceed fp16's 65504: scale the warp's chunk by a power of two
  // (exact) so that its largest magnitude is below 2^14, and undo it on the total.
  float scale = 1.0f, unscale = 1.0f;
  if constexpr (sizeof(InT) != 2) {
    float m = 0.0f;
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
  }
  FragAcc c;
  wmma::fill_fragment(c, 0.0f);  // C_0 = 0
  for (int r = 0; r < chain_length; ++r) {
    const std::int64_t t = first + static_cast<std::int64_t>(r) * kTileElems;
    if (t >= len) break;
    FragBRow m;
    if constexpr (sizeof(InT) == 2) {
      tc::store_piece(s.tile, tc::load_contiguous<tc::Cache::read_only>(p, len, t, lane), lane);
      __syncwarp();
      wmma::load_matrix_sync(m, s.tile, kTile);
      wmma::mma_sync(c, k.ones_a, m, c);  // C_r = 1·M_r + C_{r−1}
    } else {
      tc::Piece hi, lo;
      load_float_piece_split(p, len, t, lane, scale, hi, lo);
      tc::store_piece(s.hi, hi, lane);
      tc::store_piece(s.lo, lo, lane);
      __syncwarp();
      wmma::load_matrix_sync(m, s.hi, kTile);
      wmma::mma_sync(c, k.ones_a, m, c);  // C_r = 1·M_r,hi + C_{r−1}
      wmma::load_matrix_sync(m, s.lo, kTile);
      wmma::mma_sync(c, k.ones_a, m, c);  //     + 1·M_r,lo
    }
    __syncwarp();
  }
  // C_{R+1} = C_R·1 = hi·1 + lo·1, C_R split into fp16 halves; x[0] of the result is the total.
  wmma::store_matrix_sync(s.v, c, kTile, wmma::mem_row_major);
  __syncwarp();
  FragAcc d;
  wmma::fill_fragment(d, 0.0f);
  if (!tc::mma_split_operand(d, s.v, k.ones_b, s.hi, s.lo, lane)) {  // does not split (> 2^15): in fp32
    const float sum = tc::row16_sum(s.v, lane);  // row 0 = the column sums
    __syncwarp();                                // s.v may be overwritten next
    return sum * unscale;
  }
  return d.x[0] * unscale;  // every element is the total
}

// Navarro's original: fp16 accumulators and fp16 results (overflows above 65504).
__device__ inline __half chained_warp_sum_fp16(const __half* p, std::int64_t len, std::int64_t first, int chain_length,
                                               WarpScratch& s, const ChainConstants& k, int lane) {
  tc::FragAccHalf c;
  wmma::fill_fragment(c, __float2half(0.0f));
  for (int r = 0; r < chain_length; ++r) {
    const std::int64_t t = first + static_cast<std::int64_t>(r) * kTileElems;
    if (t >= len) break;
    tc::store_piece(s.tile, tc::load_contiguous<tc::Cache::read_only>(p, len, t, lane), lane);
    __syncwarp();
    FragBRow m;
    wmma::load_matrix_sync(m, s.tile, kTile);
    wmma::mma_sync(c, k.ones_a, m, c);  // C_r = 1·M_r + C_{r−1}, in fp16
    __syncwarp();
  }
  wmma::store_matrix_sync(s.hi, c, kTile, wmma::mem_row_major);  // fp16 already: no split
  __syncwarp();
  FragA a;
  tc::FragAccHalf d;
  wmma::fill_fragment(d, __float2half(0.0f));
  wmma::load_matrix_sync(a, s.hi, kTile);
  wmma::mma_sync(d, a, k.ones_b, d);  // C_{R+1} = C_R·1
  __syncwarp();
  return d.x[0];
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
    for (int o = 16; o >= 1; o >>= 1) t += __shfl_xor_sync(kFullMask, t, o);
    if (lane == 0) atomicAdd(out, t);  // one atomic per block
  }
  __syncthreads();  // warp_total is reused by the next item
}

}  // namespace tcu::detail::reduce
