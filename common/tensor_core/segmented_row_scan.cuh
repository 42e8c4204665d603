#pragma once
// Steps 1–3 of a round of the any-size kernels (03's reduction, 04's scan; docs/algorithms.md,
// "Segments of any size"). From s = 17 on a 16-element row of an ALIGNED tile holds at most one
// segment start b and one end; each row is cut at b and each part summed on its own (no sum mixes
// two segments, so the errors are those of fp32 sums of one segment):
//   row r of A:   [ x0 x1 … x(b−1) | xb … x15 ]        b = start of row r
//                   A_pre (previous segment)   A_post (the segment starting at b)
#include <cstdint>

#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/warp_shares.hpp"

namespace tcu::tc {

inline constexpr int kRowScanTiles = 8;  // tiles per round of the any-size kernels (V has 16 rows: P and Q)

// A row's position: its first element's offset inside its segment (rem < s) and that segment's
// index; one 64-bit division per round (row_cursor of element `first`), then 32-bit steps
// (row_cursor_after: `delta` elements further, rem + delta < 2^32).
struct RowCursor {
  unsigned rem;
  std::int64_t segment;
};
__device__ __forceinline__ RowCursor row_cursor(std::int64_t first, std::int64_t s) {
  const std::int64_t seg = first / s;
  return RowCursor{static_cast<unsigned>(first - seg * s), seg};
}
__device__ __forceinline__ RowCursor row_cursor_after(RowCursor c, unsigned delta, unsigned s) {
  const unsigned o = c.rem + delta;
  const unsigned q = o / s;
  return RowCursor{o - q * s, c.segment + q};
}
// The columns of a row's segment start and end, 16 for none (end = start − 1, or 15).
__device__ __forceinline__ int row_start(unsigned rem, unsigned s) {
  return rem == 0 ? 0 : (s - rem < static_cast<unsigned>(kTile) ? static_cast<int>(s - rem) : kTile);
}
__device__ __forceinline__ int row_end(unsigned rem, unsigned s) {
  return s - 1 - rem < static_cast<unsigned>(kTile) ? static_cast<int>(s - 1 - rem) : kTile;
}

// 1. Cut: in every tile of the round the lane's piece keeps the columns >= its row's start in
// post[k] (A_post) and moves the others to pre[k] (A_pre). `rem0`: the offset of the lane's row in
// tile 0; `step` = 256 mod s (the same row one tile later). Ends with __syncwarp().
template <int kTiles>
__device__ __forceinline__ void cut_round(__half (*post)[kTileElems], __half (*pre)[kTileElems], unsigned rem0,
                                          unsigned step, unsigned s, int lane) {
  unsigned rem = rem0;
  const int c0 = piece_col(lane);
#pragma unroll
  for (int k = 0; k < kTiles; ++k) {
    const int before = row_start(rem, s) - c0;  // elements of the piece before the start (<= 0: none)
    uint4 x = *reinterpret_cast<const uint4*>(post[k] + lane * kPieceElems);
    unsigned m[4];
#pragma unroll
    for (int w = 0; w < 4; ++w)
      m[w] = (2 * w < before ? 0x0000ffffu : 0u) | (2 * w + 1 < before ? 0xffff0000u : 0u);
    const uint4 p = make_uint4(x.x & m[0], x.y & m[1], x.z & m[2], x.w & m[3]);
    x = make_uint4(x.x & ~m[0], x.y & ~m[1], x.z & ~m[2], x.w & ~m[3]);
    *reinterpret_cast<uint4*>(post[k] + lane * kPieceElems) = x;
    *reinterpret_cast<uint4*>(pre[k] + lane * kPieceElems) = p;
    rem += step;
    if (rem >= s) rem -= s;
  }
  __syncwarp();
}

// 2. Row totals: V[k][r] = P (the A_pre sum), V[8 + k][r] = Q (the A_post sum) of row r of tile k
// by 16 MMAs into ONE accumulator, E_q·Bᵀ putting the row sums of B in row q (chapter 03's
// Reduction16 multi-segment). V: fp32, row-major, may alias pre[0 … 1]. Ends with __syncwarp().
template <int kTiles>
__device__ __forceinline__ void round_row_totals(float* v, const __half (*post)[kTileElems],
                                                 const __half (*pre)[kTileElems], const __half* e_window) {
  static_assert(2 * kTiles <= kTile, "P and Q of every tile fit the 16 rows of V");
  FragAcc acc;
  wmma::fill_fragment(acc, 0.0f);
#pragma unroll
  for (int k = 0; k < kTiles; ++k) {
    FragA e;
    FragBCol b;  // column r = row r of the tile
    wmma::load_matrix_sync(b, pre[k], kTile);
    wmma::load_matrix_sync(e, e_window_row(e_window, k), kTile);
    wmma::mma_sync(acc, e, b, acc);  // V[k][r]     = P of row r of tile k
    wmma::load_matrix_sync(b, post[k], kTile);
    wmma::load_matrix_sync(e, e_window_row(e_window, kTiles + k), kTile);
    wmma::mma_sync(acc, e, b, acc);  // V[8 + k][r] = Q of row r of tile k
  }
  __syncwarp();  // every lane has read the tiles (V may overwrite pre[0 … 1])
  wmma::store_matrix_sync(v, acc, kTile, wmma::mem_row_major);
  __syncwarp();
}

// 3. Row carries: the round's 128 rows (row g = row g % 16 of tile g / 16) joined by a segmented
// scan after `carry`, what the previous round passed on:
//   pass_on(g)  = Q_g if a segment starts in row g, else carry_in(g) + P_g (P_g: the whole row)
//   carry_in(g) = pass_on(g − 1),  carry_in(0) = carry
// Lane L takes rows 4L … 4L+3 in sequence (`first`: the cursor of row 4L), then 5 shuffle steps.
// Calls on_row(g, carry_in, P, Q, start, end, segment) for the lane's rows and returns what the
// round passes on. Every lane must call it (shuffles).
template <int kTiles, class OnRow>
__device__ __forceinline__ float round_row_carries(const float* v, RowCursor first, unsigned s, float carry, int lane,
                                                   OnRow&& on_row) {
  static_assert(kTiles * kTile == 4 * kWarpSize, "4 rows per lane");
  const int g0 = 4 * lane, k = g0 / kTile, r0 = g0 % kTile;
  const float4 p4 = *reinterpret_cast<const float4*>(v + k * kTile + r0);
  const float4 q4 = *reinterpret_cast<const float4*>(v + (kTiles + k) * kTile + r0);
  const float p[4] = {p4.x, p4.y, p4.z, p4.w}, q[4] = {q4.x, q4.y, q4.z, q4.w};
  unsigned rem[4];
  std::int64_t seg[4];
  RowCursor c = first;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    rem[i] = c.rem;
    seg[i] = c.segment;
    c.rem += kTile;  // s >= 17: at most one wrap
    if (c.rem >= s) {
      c.rem -= s;
      ++c.segment;
    }
  }
  float agg = 0.0f;  // the lane's 4 rows in sequence ...
  bool f = false;    // a start among them so far
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const bool head = row_start(rem[i], s) < kTile;
    agg = head ? q[i] : agg + p[i];
    if (head) f = true;
  }
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2) {  // ... then a segmented Hillis-Steele scan over the lanes
    const float o = __shfl_up_sync(kFullMask, agg, d);
    const bool of = __shfl_up_sync(kFullMask, static_cast<int>(f), d) != 0;
    if (lane >= d) {
      if (!f) agg = o + agg;
      f = f || of;
    }
  }
  const float pass_on = f ? agg : carry + agg;  // after the lane's last row
  float cin = __shfl_up_sync(kFullMask, pass_on, 1);
  if (lane == 0) cin = carry;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int start = row_start(rem[i], s);
    on_row(g0 + i, cin, p[i], q[i], start, row_end(rem[i], s), seg[i]);
    cin = start < kTile ? q[i] : cin + p[i];
  }
  return __shfl_sync(kFullMask, pass_on, kWarpSize - 1);
}

}  // namespace tcu::tc
