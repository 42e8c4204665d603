#pragma once
// Scan256's tile formulation (Dakkak et al. §5; docs/algorithms.md, "Scan256") as WMMA calls
// on shared memory (no fragment element is read: layouts are unspecified), one tile per warp,
// with the fp32 fallbacks of a refused hi/lo split (docs/algorithms.md, "The hi/lo split").
#include <cuda_fp16.h>

#include "common/tensor_core/fragments.cuh"

namespace tcu::detail::scan {

namespace wmma = nvcuda::wmma;
using tc::kTile;
using tc::kTileElems;
using tc::kWarpSize;

using tc::SplitScratch;

// ---- fp32 fallbacks (lane L: tile elements [8L, 8L + 8), row L/2) ----

// The sum of row lane/2 of the fp32 tile x, in both lanes of the row: the lane's entry of X·1.
__device__ __forceinline__ float row_sum_fp32(const float* x, int lane) {
  const float4 a = reinterpret_cast<const float4*>(x + lane * tc::kPieceElems)[0];
  const float4 b = reinterpret_cast<const float4*>(x + lane * tc::kPieceElems)[1];
  const float s = ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w));
  return s + __shfl_xor_sync(tc::kFullMask, s, 1);
}

// The lane's 8 elements of the fp32 tile r += v.
__device__ __forceinline__ void add_to_lane_elements(float* r, float v, int lane) {
  float4* p = reinterpret_cast<float4*>(r + lane * tc::kPieceElems);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float4 q = p[h];
    q.x += v;
    q.y += v;
    q.z += v;
    q.w += v;
    p[h] = q;
  }
}

// Scan256: R = A·U + (L·A)·1 + carry (the carry broadcast in C: Scan256N). With L masked per
// segment (rows_per_segment = 2, 4, 8) a tile of several segments is scanned segment by
// segment. L·A, an accumulator, becomes an operand as hi + lo (4 MMAs); above 2^15 (L·A)·1 is
// added in fp32 by the lanes instead. r must not alias s.f.
__device__ inline void scan256_tile(const __half* a, const __half* u, const __half* l, float carry, float* r,
                                    SplitScratch& s, int lane) {
  tc::FragA fa, fl;
  tc::FragBRow fu, fab, ones;
  tc::FragAcc acc, la;
  wmma::load_matrix_sync(fa, a, kTile);
  wmma::load_matrix_sync(fu, u, kTile);
  wmma::fill_fragment(acc, carry);          // Scan256N's carry: every element equal, layout-free
  wmma::mma_sync(acc, fa, fu, acc);         // + A·U: each row scanned
  wmma::load_matrix_sync(fl, l, kTile);
  wmma::load_matrix_sync(fab, a, kTile);    // the same tile, now as the B operand
  wmma::fill_fragment(la, 0.0f);
  wmma::mma_sync(la, fl, fab, la);          // L·A: row i = sum of the rows before i (per column)
  wmma::store_matrix_sync(s.f, la, kTile, wmma::mem_row_major);  // accumulator → operand: via smem
  __syncwarp();
  wmma::fill_fragment(ones, __float2half(1.0f));
  if (tc::mma_split_operand(acc, s.f, ones, s.hi, s.lo, lane)) {  // + (L·A)·1 as hi·1 + lo·1
    wmma::store_matrix_sync(r, acc, kTile, wmma::mem_row_major);
  } else {  // L·A above 2^15: + (L·A)·1 in fp32, row i += the sum of row i of L·A
    const float row_offset = row_sum_fp32(s.f, lane);
    wmma::store_matrix_sync(r, acc, kTile, wmma::mem_row_major);
    __syncwarp();
    add_to_lane_elements(r, row_offset, lane);
  }
  __syncwarp();
}

}  // namespace tcu::detail::scan
