#pragma once
// What every reduction kernel of the chapter shares on the device: the fragment types, the
// constant matrices of 01_wmma_basics/constant_matrices.hpp as fragments, and the last step
// "V·Pᵀ" that turns 16 fp32 partial sums (row 0 of an accumulator V) into one scalar.
//
// The fp32 → fp16 problem of that last step: V is an accumulator (fp32 here), but an MMA
// operand must be fp16. Dakkak et al. round V to fp16 (2^-11 relative error, and +inf once a
// partial passes 65504). We split V = hi + lo with hi = fp16(V), lo = fp16(V − hi) and do two
// MMAs into an fp32 accumulator: R = hi·Pᵀ + lo·Pᵀ, accurate to 2^-22·|V| + 2^-25 (lo is an fp16
// subnormal when |V| < 2^-3). Where a partial
// is too large for fp16 (|V| > 2^15) the warp adds row 0 with fp32 shuffles instead.
#include <cuda_fp16.h>
#include <mma.h>

#include "01_wmma_basics/constant_matrices.hpp"
#include "03_tcu_reduction/segment_staging.cuh"

namespace tcu::reduction {

using namespace nvcuda;
using wmma_basics::ConstantMatrix;
inline constexpr int kTile = staging::kTile;
inline constexpr int kTileElems = staging::kTileElems;
inline constexpr unsigned kFullMask = 0xffffffffu;

using FragA = wmma::fragment<wmma::matrix_a, kTile, kTile, kTile, __half, wmma::row_major>;
using FragBRow = wmma::fragment<wmma::matrix_b, kTile, kTile, kTile, __half, wmma::row_major>;
using FragBCol = wmma::fragment<wmma::matrix_b, kTile, kTile, kTile, __half, wmma::col_major>;
using Acc = wmma::fragment<wmma::accumulator, kTile, kTile, kTile, float>;

// Per-warp shared memory every kernel of the chapter uses (32-byte aligned members).
struct WarpScratch {
  __half tile[kTileElems];  // a staged input tile, or a constant matrix while it is loaded
  float v[kTileElems];      // an accumulator stored to become an operand (V of V·Pᵀ)
  __half hi[kTileElems];    // fp16(V)
  __half lo[kTileElems];    // fp16(V − fp16(V))
};

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31u); }
__device__ __forceinline__ int warp_in_block() { return static_cast<int>(threadIdx.x >> 5); }

// Writes the 16×16 constant matrix m, row-major, into `tile` (each lane 8 entries).
__device__ __forceinline__ void write_constant_tile(__half* tile, ConstantMatrix m, int lane) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int e = lane * 8 + i;
    tile[e] = __float2half(wmma_basics::constant_entry_is_one(m, e / kTile, e % kTile) ? 1.0f : 0.0f);
  }
}

// A fragment holding the constant matrix m (built in `scratch`, a 256-half tile of this warp).
template <class Frag>
__device__ __forceinline__ void load_constant(Frag& frag, ConstantMatrix m, __half* scratch, int lane) {
  write_constant_tile(scratch, m, lane);
  __syncwarp();
  wmma::load_matrix_sync(frag, scratch, kTile);
  __syncwarp();
}

__device__ __forceinline__ void zero_tile(__half* tile, int lane) {
  staging::store_piece(tile, staging::zero_piece(), lane);
}

// fp32 sum of the 16 values row[0..15], the same in every lane (4 shuffles).
__device__ __forceinline__ float sum16_shuffle(const float* row, int lane) {
  float x = (lane < kTile) ? row[lane] : 0.0f;
#pragma unroll
  for (int o = 8; o >= 1; o >>= 1) x += __shfl_xor_sync(kFullMask, x, o);
  x = __shfl_sync(kFullMask, x, 0);
  __syncwarp();  // `row` may be overwritten next
  return x;
}

// Dakkak's last step, R = V·Pᵀ; R[0][0] = Σ_k V[0][k]. `s.v` holds V (row-major, fp32; only
// row 0 is read); `s.hi` and `s.lo` must be zero outside row 0 (the kernel zeroes them once).
// `carry` is the accumulator C of the product (R = V·Pᵀ + carry everywhere), which is how
// Reduction256N (work-inefficient) carries its running scalar. Returns R[0][0] in every lane.
// Reuses s.v for R.
__device__ __forceinline__ float collapse_row0(WarpScratch& s, const FragBRow& pt, int lane, float carry = 0.0f) {
  const float v = (lane < kTile) ? s.v[lane] : 0.0f;
  if (__any_sync(kFullMask, !(fabsf(v) <= 32768.0f)))  // too big for fp16: fp32 shuffles
    return sum16_shuffle(s.v, lane) + carry;
  if (lane < kTile) {
    const __half hi = __float2half_rn(v);
    s.hi[lane] = hi;
    s.lo[lane] = __float2half_rn(v - __half2float(hi));
  }
  __syncwarp();
  FragA a;
  Acc r;
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
}

// The constants of Dakkak's kernels: P as matrix_a, Pᵀ as matrix_b, and the hi/lo tiles of
// collapse_row0 zeroed (their rows 1…15 stay zero).
__device__ __forceinline__ void init_p_pt(FragA& p, FragBRow& pt, WarpScratch& s, int lane) {
  load_constant(p, ConstantMatrix::P, s.tile, lane);
  load_constant(pt, ConstantMatrix::Pt, s.tile, lane);
  zero_tile(s.hi, lane);
  zero_tile(s.lo, lane);
}

// The 256 fp32 values src (8 per lane) as fp16 hi and lo tiles; false (nothing written) when
// one of them is too large for fp16 (|v| > 2^15) — the caller then adds in fp32.
__device__ __forceinline__ bool split_tile_hi_lo(const float* src, __half* hi, __half* lo, int lane) {
  bool big = false;
#pragma unroll
  for (int i = 0; i < 8; ++i) big |= !(fabsf(src[lane * 8 + i]) <= 32768.0f);
  if (__any_sync(kFullMask, big)) return false;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const float v = src[lane * 8 + i];
    const __half h = __float2half_rn(v);
    hi[lane * 8 + i] = h;
    lo[lane * 8 + i] = __float2half_rn(v - __half2float(h));
  }
  __syncwarp();
  return true;
}

// A warp's work item of the split kernels: chunk `item % chunks_per_segment` of segment
// `item / chunks_per_segment`, at most `chunk` elements.
struct ChunkItem {
  const __half* p;  // first element
  long long len;    // elements
};
__device__ __forceinline__ ChunkItem chunk_item(const __half* x, long long item, long long segment_size,
                                                long long chunk, long long chunks_per_segment) {
  const long long seg = item / chunks_per_segment, first = (item % chunks_per_segment) * chunk;
  return {x + seg * segment_size + first, min(chunk, segment_size - first)};
}

// Stores the accumulator V (row-major) into s.v and collapses its row 0 (see collapse_row0).
__device__ __forceinline__ float store_and_collapse(WarpScratch& s, const Acc& v, const FragBRow& pt, int lane) {
  wmma::store_matrix_sync(s.v, v, kTile, wmma::mem_row_major);
  __syncwarp();
  return collapse_row0(s, pt, lane);
}

}  // namespace tcu::reduction
