#pragma once
// The tile formulations of Dakkak et al. §5, one 16×16 fp16 tile per warp, as WMMA calls
// (docs/algorithms.md, "Scan"). Every operand comes from shared memory and every result goes
// back there: WMMA fragment layouts are unspecified, so nothing here touches a fragment
// element except through load/store_matrix_sync or fill_fragment (all elements equal:
// layout-free).
//
//   scan16_tile   R = A·U                      inclusive scan of every row of A
//   scan256_tile  R = A·U + (L·A)·1 + c·1·1    inclusive scan of the whole tile (row-major), plus
//                                              a carry c broadcast in the accumulator (Scan256N)
//
// L·A is an fp32 accumulator that must become an fp16 operand. Rounding it to fp16 would cost
// 2^-11 of every running sum, so it is split (docs/algorithms.md, "The hi/lo split"):
// L·A = hi + lo, and (L·A)·1 = hi·1 + lo·1 (one extra MMA, error 2^-22 relative). The split
// refuses values above 2^15 (common/tensor_core/split.hpp); then (L·A)·1 is added in fp32 by
// the lanes instead: row i of the result += the sum of row i of L·A (row_sum_fp32).
#include <cuda_fp16.h>

#include "common/tensor_core/fragments.cuh"

namespace tcu::detail::scan {

namespace wmma = nvcuda::wmma;
using tc::kTile;
using tc::kTileElems;
using tc::kWarpSize;

// Per-warp shared scratch for the hi/lo split of one fp32 tile (f: the fp32 tile).
struct alignas(32) SplitScratch {
  float f[kTileElems];
  __half hi[kTileElems];
  __half lo[kTileElems];
};

// ---- the fp32 fallbacks of a refused split (lane L: tile elements [8L, 8L + 8), row L/2) ----

// The sum of row lane/2 of the fp32 tile x (both lanes of the row get the same value): the
// lane's entry of X·1 on the CUDA cores.
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

// Element e of X·C in fp32 on the CUDA cores: X a 16×16 fp32 tile, C a 16×16 fp16 tile (both
// row-major in shared memory). One element at a time, so that the fallback holds one
// accumulator and leaves the registers of the tensor-core path alone.
__device__ inline float times_tile_fp32_at(const float* x, const __half* c, int e) {
  const int row = e / kTile, col = e % kTile;
  float y = 0.0f;
  for (int k = 0; k < kTile; ++k) y += x[row * kTile + k] * __half2float(c[k * kTile + col]);
  return y;
}

// ---- the tile formulations -----------------------------------------------------------------

// Scan16: R = A·U (every row of the tile scanned on its own). 1 MMA.
__device__ inline void scan16_tile(const __half* a, const __half* u, float* r) {
  // BEGIN EXERCISE 04.2 Scan16 on one tile: R = A·U, every row of 16 scanned
  // HINT: a (the tile, row-major, one segment per row) and u (the constant U, row-major) are
  // HINT: in shared memory, leading dimension kTile. Load A as tc::FragA, U as tc::FragBRow,
  // HINT: zero a tc::FragAcc, one mma_sync, store R row-major to r (fp32).
  // SIZE: 8 lines
  tc::FragA fa;
  tc::FragBRow fu;
  tc::FragAcc acc;
  wmma::load_matrix_sync(fa, a, kTile);
  wmma::load_matrix_sync(fu, u, kTile);
  wmma::fill_fragment(acc, 0.0f);
  wmma::mma_sync(acc, fa, fu, acc);
  wmma::store_matrix_sync(r, acc, kTile, wmma::mem_row_major);
  // STUB: (void)a; (void)u; (void)r;
  // END EXERCISE
}

// Scan256: R = carry + A·U + (L·A)·1. With a segment-masked L, a tile of several segments
// (rows_per_segment = 2, 4, 8) is scanned segment by segment. 1 + 1 + 2 MMAs (1 + 1 and the
// fp32 row sums when L·A does not split). r must not alias s.f.
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
