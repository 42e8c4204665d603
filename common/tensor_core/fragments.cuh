#pragma once
// The warp-level vocabulary of every tensor-core kernel: the 16×16×16 fp16 fragments (FragA left;
// FragBRow / FragBCol right, row- or column-major: P read as FragBCol is Pᵀ; FragAcc fp32, FragAccHalf
// the accuracy study's), lane/warp indices, constant tiles and the hi/lo split in shared memory.
#include <cuda_fp16.h>
#include <mma.h>

#include "common/tensor_core/constant_matrices.hpp"
#include "common/tensor_core/tile_geometry.hpp"  // kWarpSize, kFullMask, lane_id

namespace tcu::tc {

namespace wmma = nvcuda::wmma;

using FragA = wmma::fragment<wmma::matrix_a, kTile, kTile, kTile, __half, wmma::row_major>;
using FragBRow = wmma::fragment<wmma::matrix_b, kTile, kTile, kTile, __half, wmma::row_major>;
using FragBCol = wmma::fragment<wmma::matrix_b, kTile, kTile, kTile, __half, wmma::col_major>;
using FragAcc = wmma::fragment<wmma::accumulator, kTile, kTile, kTile, float>;
using FragAccHalf = wmma::fragment<wmma::accumulator, kTile, kTile, kTile, __half>;

// The fp32 sum of row[0 … 15] (a stored accumulator's row 0), by shuffles in a fixed order, in every
// lane. The caller syncs the warp before `row` is written again.
__device__ __forceinline__ float row16_sum(const float* row, int lane) {
  float x = lane < kTile ? row[lane] : 0.0f;
#pragma unroll
  for (int o = kTile / 2; o >= 1; o >>= 1) x += __shfl_xor_sync(kFullMask, x, o);
  return __shfl_sync(kFullMask, x, 0);
}

// ---- the constant matrices (constant_matrices.hpp) as shared-memory tiles and fragments: WMMA
// layouts are unspecified, so a tile is written by position and loaded (row-major, ldm 16) ----

__device__ __forceinline__ __half constant_half(ConstantMatrix m, int row, int col, int param = 0) {
  return __float2half(constant_entry_is_one(m, row, col, param) ? 1.0f : 0.0f);
}

// Entries [first, kTileElems) step `stride`: one thread's share (a warp: lane, 32; a block: threadIdx.x, blockDim.x).
__device__ __forceinline__ void write_constant_tile(__half* tile, ConstantMatrix m, int first, int stride,
                                                    int param = 0) {
  for (int e = first; e < kTileElems; e += stride) tile[e] = constant_half(m, e / kTile, e % kTile, param);
}

// The warp writes the tile (8 entries per lane) and can load it after the barrier.
__device__ __forceinline__ void warp_write_constant_tile(__half* tile, ConstantMatrix m, int lane, int param = 0) {
  write_constant_tile(tile, m, lane, kWarpSize, param);
  __syncwarp();
}

// A fragment holding constant matrix m, built through the warp's 256-half `scratch`. Pᵀ: P as a FragBCol.
template <class Frag>
__device__ __forceinline__ void load_constant(Frag& frag, ConstantMatrix m, __half* scratch, int lane, int param = 0) {
  warp_write_constant_tile(scratch, m, lane, param);
  wmma::load_matrix_sync(frag, scratch, kTile);
  __syncwarp();  // every lane has loaded before the scratch is reused
}

// All 16 matrices E_q in one 32×16 "window" (row 15 ones, the rest zeros): rows [15 − q, 31 − q) are E_q.
inline constexpr int kEWindowRows = 2 * kTile;
__device__ __forceinline__ void write_e_window(__half* window, int first, int stride) {
  for (int e = first; e < kEWindowRows * kTile; e += stride)
    window[e] = constant_half(ConstantMatrix::E, e / kTile, e % kTile, kTile - 1);
}
__device__ __forceinline__ const __half* e_window_row(const __half* window, int q) {
  return window + (kTile - 1 - q) * kTile;
}

// ---- the hi/lo split (tile_geometry.hpp) in shared memory, a warp at a time, all or nothing: if one
// value does not split, nothing is written and every lane gets false (the warp's fp32 path) ----
// warp_split_rows: the first kRows rows of `src` (fp32, row-major) into fp16 tiles `hi` and `lo`;
// lane L takes the value pairs L, L + 32, … (no access conflicts). Ends with __syncwarp().
template <int kRows = kTile>
__device__ __forceinline__ bool warp_split_rows(const float* src, __half* hi, __half* lo, int lane) {
  static_assert(kRows == 8 || kRows == 16, "8 or 16 rows: 2 or 4 value pairs per lane");
  constexpr int kPairs = kRows * kTile / 2 / kWarpSize;  // float2 per lane
  float2 f[kPairs];
  bool ok = true;
#pragma unroll
  for (int i = 0; i < kPairs; ++i) {
    f[i] = reinterpret_cast<const float2*>(src)[i * kWarpSize + lane];
    ok &= splits(f[i].x) && splits(f[i].y);
  }
  if (!__all_sync(kFullMask, ok)) return false;
#pragma unroll
  for (int i = 0; i < kPairs; ++i) {
    const __half2 h = __floats2half2_rn(f[i].x, f[i].y);
    const float2 b = __half22float2(h);
    reinterpret_cast<__half2*>(hi)[i * kWarpSize + lane] = h;
    reinterpret_cast<__half2*>(lo)[i * kWarpSize + lane] = __floats2half2_rn(f[i].x - b.x, f[i].y - b.y);
  }
  __syncwarp();
  return true;
}

struct alignas(32) SplitScratch {  // a warp's scratch for the split of one fp32 tile f
  float f[kTileElems];
  __half hi[kTileElems], lo[kTileElems];
};

// acc += hi·C + lo·C: the two MMAs of a split operand (hi, lo: fp16 tiles in shared memory).
template <class FragB>
__device__ __forceinline__ void mma_hi_lo(FragAcc& acc, const __half* hi, const __half* lo, const FragB& c) {
  FragA a;
  wmma::load_matrix_sync(a, hi, kTile);
  wmma::mma_sync(acc, a, c, acc);
  wmma::load_matrix_sync(a, lo, kTile);
  wmma::mma_sync(acc, a, c, acc);
}

// acc += X·C, X the fp32 tile `x` (row-major, shared memory) split into the warp's scratch tiles
// `hi`, `lo`; false, acc unchanged, when X does not split (the caller adds X·C in fp32).
template <class FragB>
__device__ __forceinline__ bool mma_split_operand(FragAcc& acc, const float* x, const FragB& c, __half* hi, __half* lo,
                                                  int lane) {
  if (!warp_split_rows<kTile>(x, hi, lo, lane)) return false;
  mma_hi_lo(acc, hi, lo, c);
  __syncwarp();  // hi/lo are free again
  return true;
}

// The same for an X whose only non-zero row is row 0, `row` (V of V·Pᵀ): 16 values split instead
// of 256, into row 0 of `hi` and `lo`, whose rows 1 … 15 the caller keeps zero.
template <class FragB>
__device__ __forceinline__ bool mma_split_row0(FragAcc& acc, const float* row, const FragB& c, __half* hi, __half* lo,
                                               int lane) {
  const float v = lane < kTile ? row[lane] : 0.0f;
  if (!__all_sync(kFullMask, splits(v))) return false;
  if (lane < kTile) {
    const HiLo h = split_hi_lo(v);
    hi[lane] = h.hi;
    lo[lane] = h.lo;
  }
  __syncwarp();
  mma_hi_lo(acc, hi, lo, c);
  return true;
}

}  // namespace tcu::tc
