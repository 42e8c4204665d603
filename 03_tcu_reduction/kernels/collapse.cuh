#pragma once
// What the reduction kernels share on the device beyond common/tensor_core: the per-warp
// scratch, and Dakkak et al.'s last step "V·Pᵀ" that turns 16 fp32 partial sums (row 0 of an
// accumulator V) into one scalar.
//
// The fp32 → fp16 problem of that last step: V is an accumulator (fp32 here), but an MMA
// operand must be fp16. Dakkak et al. round V to fp16 (2^-11 relative error, and +inf once a
// partial passes 65504). We split V = hi + lo (common/tensor_core/split.hpp, docs/algorithms.md
// "The hi/lo split") and do two MMAs into an fp32 accumulator: R = hi·Pᵀ + lo·Pᵀ, accurate to
// 2^-22·|V| + 2^-25. Where a partial does not split (|V| > 2^15, the shared policy) the warp
// adds row 0 with fp32 shuffles instead.
#include <cuda_fp16.h>

#include <cstdint>

#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/split.hpp"
#include "common/tensor_core/staging.cuh"

namespace tcu::detail::reduce {

// The shared vocabulary, by its short names in the kernels of this chapter.
namespace wmma = nvcuda::wmma;
using tc::ConstantMatrix;
using tc::FragA;
using tc::FragAcc;
using tc::FragBCol;
using tc::FragBRow;
using tc::kFullMask;
using tc::kTile;
using tc::kTileElems;
using tc::lane_id;
using tc::warp_in_block;

// Per-warp shared memory of the kernels that collapse V (32-byte aligned members).
struct WarpScratch {
  __half tile[kTileElems];  // a staged input tile, or a constant matrix while it is loaded
  float v[kTileElems];      // an accumulator stored to become an operand (V of V·Pᵀ)
  __half hi[kTileElems];    // fp16(V)
  __half lo[kTileElems];    // fp16(V − fp16(V))
};

__device__ __forceinline__ void zero_tile(__half* tile, int lane) { tc::store_piece(tile, tc::zero_piece(), lane); }

// Dakkak's last step, R = V·Pᵀ; R[0][0] = Σ_k V[0][k]. `s.v` holds V (row-major, fp32; only
// row 0 is read); `s.hi` and `s.lo` must be zero outside row 0 (the kernel zeroes them once).
// `carry` is the accumulator C of the product (R = V·Pᵀ + carry everywhere), which is how
// Reduction256N (work-inefficient) carries its running scalar. Returns R[0][0] in every lane.
// Reuses s.v for R.
__device__ __forceinline__ float collapse_row0(WarpScratch& s, const FragBRow& pt, int lane, float carry = 0.0f) {
  const float v = (lane < kTile) ? s.v[lane] : 0.0f;
  if (!__all_sync(kFullMask, tc::splits(v))) {  // does not split (|V| > 2^15): fp32 shuffles
    const float sum = tc::row16_sum(s.v, lane);
    __syncwarp();  // s.v may be overwritten next
    return sum + carry;
  }
  // BEGIN EXERCISE 03.3 Reduction256's last step, R = V·Pᵀ, with V split into fp16 hi + lo
  // HINT: Lanes 0…15 split their value v of row 0 with tc::split_hi_lo (common/tensor_core/
  // HINT: split.hpp) into s.hi[lane] and s.lo[lane] (rows 1…15 are already zero); __syncwarp().
  // HINT: Then R = hi·Pᵀ + lo·Pᵀ + carry: an accumulator filled with carry, two mma_sync with a
  // HINT: FragA loaded from s.hi, then s.lo, and pt. Store R to s.v and return s.v[0] in every
  // HINT: lane (__syncwarp() before and after reading it).
  // SIZE: 15 to 18 lines
  if (lane < kTile) {
    const tc::HiLo h = tc::split_hi_lo(v);
    s.hi[lane] = h.hi;
    s.lo[lane] = h.lo;
  }
  __syncwarp();
  FragA a;
  FragAcc r;
  wmma::fill_fragment(r, carry);
  wmma::load_matrix_sync(a, s.hi, kTile);
  wmma::mma_sync(r, a, pt, r);  // R  = hi·Pᵀ + carry
  wmma::load_matrix_sync(a, s.lo, kTile);
  wmma::mma_sync(r, a, pt, r);  // R += lo·Pᵀ
  wmma::store_matrix_sync(s.v, r, kTile, wmma::mem_row_major);
  __syncwarp();
  const float total = s.v[0];
  __syncwarp();
  return total;
  // STUB: (void)pt;
  // STUB: return carry;
  // END EXERCISE
}

// The constants of Dakkak's kernels: P as matrix_a, Pᵀ as matrix_b, and the hi/lo tiles of
// collapse_row0 zeroed (their rows 1…15 stay zero).
__device__ __forceinline__ void init_p_pt(FragA& p, FragBRow& pt, WarpScratch& s, int lane) {
  tc::load_constant(p, ConstantMatrix::P, s.tile, lane);
  tc::load_constant(pt, ConstantMatrix::Pt, s.tile, lane);
  zero_tile(s.hi, lane);
  zero_tile(s.lo, lane);
}

// Stores the accumulator V (row-major) into s.v and collapses its row 0 (see collapse_row0).
__device__ __forceinline__ float store_and_collapse(WarpScratch& s, const FragAcc& v, const FragBRow& pt, int lane) {
  wmma::store_matrix_sync(s.v, v, kTile, wmma::mem_row_major);
  __syncwarp();
  return collapse_row0(s, pt, lane);
}

}  // namespace tcu::detail::reduce
