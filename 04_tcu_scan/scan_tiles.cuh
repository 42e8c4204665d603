#pragma once
// The tile formulations of Dakkak et al. §5, one 16×16 fp16 tile per warp, as WMMA calls.
// Every operand comes from shared memory and every result goes back there: WMMA fragment
// layouts are unspecified, so nothing here touches a fragment element except through
// load/store_matrix_sync or fill_fragment (all elements equal: layout-free).
//
//   scan16_tile   R = A·U                      inclusive scan of every row of A
//   scan256_tile  R = A·U + (L·A)·1 + c·1·1    inclusive scan of the whole tile (row-major), plus
//                                              a carry c broadcast in the accumulator (Scan256N)
// L·A is an fp32 accumulator that must become an fp16 operand. Rounding it to fp16 would cost
// 2^-11 of every running sum, so it is split: L·A = hi + lo with hi = fp16(L·A) and
// lo = fp16(L·A − hi), and (L·A)·1 = hi·1 + lo·1 (one extra MMA, error 2^-22 relative).
#include <cuda_fp16.h>
#include <mma.h>

#include "01_wmma_basics/constant_matrices.hpp"

namespace tcu::scan_detail {

namespace wm = nvcuda::wmma;

inline constexpr int kTile = 16;         // the m16n16k16 tile
inline constexpr int kTileElems = 256;   // elements of one tile
inline constexpr int kWarpSize = 32;

using FragA = wm::fragment<wm::matrix_a, 16, 16, 16, __half, wm::row_major>;
using FragB = wm::fragment<wm::matrix_b, 16, 16, 16, __half, wm::row_major>;
using FragC = wm::fragment<wm::accumulator, 16, 16, 16, float>;

// Per-warp shared scratch for the hi/lo split of one fp32 tile.
struct alignas(32) WarpScratch {
  float f[kTileElems];
  __half hi[kTileElems];
  __half lo[kTileElems];
};

// Element (r, c) of a constant 16×16 fp16 tile, built from chapter 01's definitions.
using wmma_basics::ConstantMatrix;
__device__ inline __half constant_half(ConstantMatrix m, int r, int c) {
  return __float2half(wmma_basics::constant_entry_is_one(m, r, c) ? 1.0f : 0.0f);
}

// Writes U and the segment-masked L (L[i][k] = 1 iff k < i and rows i, k belong to the same
// segment of `rows_per_segment` rows) into shared memory; called by (at least) 256 threads.
__device__ inline void build_u_and_masked_l(__half* u, __half* l, int rows_per_segment, int tid) {
  if (tid < kTileElems) {
    const int r = tid / kTile, c = tid % kTile;
    u[tid] = constant_half(ConstantMatrix::U, r, c);
    const bool same = (r / rows_per_segment) == (c / rows_per_segment);
    l[tid] = same ? constant_half(ConstantMatrix::L, r, c) : __float2half(0.0f);
  }
}

// hi = fp16(f), lo = fp16(f − hi) for the 256 elements of one tile (one warp).
__device__ inline void split_hi_lo(WarpScratch& s, int lane) {
#pragma unroll
  for (int i = 0; i < kTileElems / kWarpSize; ++i) {
    const int e = i * kWarpSize + lane;
    const float v = s.f[e];
    const __half h = __float2half_rn(v);
    s.hi[e] = h;
    s.lo[e] = __float2half_rn(v - __half2float(h));
  }
}

// acc += X·M where X is the fp32 tile in s.f (split into hi + lo) and M an fp16 tile.
__device__ inline void mma_split_operand(FragC& acc, WarpScratch& s, const FragB& m, int lane) {
  __syncwarp();
  split_hi_lo(s, lane);
  __syncwarp();
  FragA hi, lo;
  wm::load_matrix_sync(hi, s.hi, kTile);
  wm::load_matrix_sync(lo, s.lo, kTile);
  wm::mma_sync(acc, hi, m, acc);
  wm::mma_sync(acc, lo, m, acc);
}

// Scan16: R = A·U (every row of the tile scanned on its own). 1 MMA.
__device__ inline void scan16_tile(const __half* a, const __half* u, float* r) {
  FragA fa;
  FragB fu;
  FragC acc;
  wm::load_matrix_sync(fa, a, kTile);
  wm::load_matrix_sync(fu, u, kTile);
  wm::fill_fragment(acc, 0.0f);
  wm::mma_sync(acc, fa, fu, acc);
  wm::store_matrix_sync(r, acc, kTile, wm::mem_row_major);
}

// Scan256: R = carry + A·U + (L·A)·1. With a segment-masked L, a tile of several segments
// (rows_per_segment = 2, 4, 8) is scanned segment by segment. 1 + 1 + 2 MMAs.
__device__ inline void scan256_tile(const __half* a, const __half* u, const __half* l, float carry, float* r,
                                    WarpScratch& s, int lane) {
  FragA fa, fl;
  FragB fu, fab, ones;
  FragC acc, la;
  wm::load_matrix_sync(fa, a, kTile);
  wm::load_matrix_sync(fu, u, kTile);
  wm::fill_fragment(acc, carry);          // Scan256N's carry: every element equal, layout-free
  wm::mma_sync(acc, fa, fu, acc);         // + A·U: each row scanned
  wm::load_matrix_sync(fl, l, kTile);
  wm::load_matrix_sync(fab, a, kTile);    // the same tile, now as the B operand
  wm::fill_fragment(la, 0.0f);
  wm::mma_sync(la, fl, fab, la);          // L·A: row i = sum of the rows before i (per column)
  wm::store_matrix_sync(s.f, la, kTile, wm::mem_row_major);  // accumulator → operand: via smem
  wm::fill_fragment(ones, __float2half(1.0f));
  mma_split_operand(acc, s, ones, lane);  // + (L·A)·1: row i += total of the rows before it
  wm::store_matrix_sync(r, acc, kTile, wm::mem_row_major);
  __syncwarp();
}

}  // namespace tcu::scan_detail
