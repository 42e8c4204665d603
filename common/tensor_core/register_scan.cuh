#pragma once
// Alg. 7's tile work with the fragments kept in registers: PTX mma.sync m16n8k16, whose fragment
// layouts are specified (WMMA's are not, so block_scan.cuh stores each accumulator to shared
// memory and reads it back). Lane = 4g + t holds, of a 16×16 tile:
//   A (ldmatrix.x4 of a row-major tile): rows g and g + 8, columns 2t, 2t + 1, 2t + 8, 2t + 9;
//   an n8 accumulator block h:           rows g and g + 8, columns 8h + 2t and 8h + 2t + 1.
// So A·U leaves every row's scan in the lanes; the row totals (column 15) sit in lanes 4g + 3.
#include <cstdint>

#include "common/tensor_core/fragments.cuh"

namespace tcu::tc {

using RegA = std::uint32_t[4];  // an A fragment: 8 halves
struct RowScans {               // A·U of one tile: c[h][0 … 1] row g, c[h][2 … 3] row g + 8
  float c[2][4];
};

// The tile's A fragment from shared memory: lane L names row L % 16 at column 8·(L / 16).
__device__ __forceinline__ void load_tile_a(RegA& a, const __half* tile, int lane) {
  const auto p = static_cast<unsigned>(__cvta_generic_to_shared(tile + (lane % kTile) * kTile + (lane / kTile) * 8));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(p) : "memory");
}
__device__ __forceinline__ void mma_16816(float (&d)[4], const RegA& a, std::uint32_t b0, std::uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// A B fragment of zeros and ones: lane 4g + t holds B[2t … 2t + 1][g] and B[2t + 8 … 2t + 9][g].
inline constexpr std::uint32_t kOnes2 = 0x3C003C00u;  // two fp16 ones
__device__ __forceinline__ std::uint32_t ones_where(bool lo, bool hi) {
  return (lo ? 0x3C00u : 0u) | (hi ? 0x3C000000u : 0u);
}
struct FragU {  // the constant U (U[k][n] = 1 where k ≤ n) as the B fragments of the two n8 blocks
  std::uint32_t b[2][2];
  __device__ explicit FragU(int lane) {
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int n = 8 * h + g;
      b[h][0] = ones_where(2 * t <= n, 2 * t + 1 <= n);
      b[h][1] = ones_where(2 * t + 8 <= n, 2 * t + 9 <= n);
    }
  }
};

// Alg. 7, step 1: the total of `tiles` consecutive tiles, V = Σ_k A_k·J (J all ones: every column
// holds the row totals), then the 16 row totals by shuffles in a fixed order; in every lane.
__device__ __forceinline__ float tiles_total(const __half* first_tile, int tiles, int lane) {
  float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k = 0; k < tiles; ++k) {
    RegA a;
    load_tile_a(a, first_tile + k * kTileElems, lane);
    mma_16816(v, a, kOnes2, kOnes2);
  }
  float s = v[0] + v[2];  // rows g and g + 8
#pragma unroll
  for (int d = 4; d < kWarpSize; d *= 2) s += __shfl_xor_sync(kFullMask, s, d);
  return s;
}

// Alg. 7, step 3, for one tile: its rows scanned (A·U), the row offsets by a shuffle scan of the row
// totals, `carry` added; written to out[0 … valid) (inclusive or exclusive, as block_scan.cuh's
// scan_tile). `pairs`: out + 2i is aligned for two results at once. A whole tile of fp16 results
// whose out is on a 16-byte boundary (`lines`) goes through `tile` itself, which the warp may then
// overwrite: the fragments' 4-byte pieces in, 16 bytes per lane out, 512 contiguous bytes per store.
// Returns the carry past the tile: its last inclusive result, the same bits the next tile's first
// exclusive result is given.
template <class OutT, bool kInclusive>
__device__ __forceinline__ float scan_tile_in_registers(__half* tile, const FragU& u, float carry, OutT* out,
                                                        int valid, bool pairs, bool lines, int lane) {
  const int g = lane / 4, t = lane % 4;
  RegA a;
  load_tile_a(a, tile, lane);
  RowScans s{};
  mma_16816(s.c[0], a, u.b[0][0], u.b[0][1]);
  mma_16816(s.c[1], a, u.b[1][0], u.b[1][1]);
  // The row totals of rows g and g + 8, then their inclusive scans over g (groups of 4 lanes).
  float lo = __shfl_sync(kFullMask, s.c[1][1], 4 * g + 3), hi = __shfl_sync(kFullMask, s.c[1][3], 4 * g + 3);
#pragma unroll
  for (int d = 1; d < 8; d *= 2) {
    const float ol = __shfl_up_sync(kFullMask, lo, 4 * d), oh = __shfl_up_sync(kFullMask, hi, 4 * d);
    if (g >= d) {
      lo = ol + lo;
      hi = oh + hi;
    }
  }
  const float top = __shfl_sync(kFullMask, lo, kWarpSize - 4);  // rows 0 … 7
  float ex_lo = __shfl_up_sync(kFullMask, lo, 4), ex_hi = __shfl_up_sync(kFullMask, hi, 4);
  if (g == 0) ex_lo = ex_hi = 0.0f;
  const float off[2] = {ex_lo, top + ex_hi};  // the row offsets of rows g and g + 8
  float v[2][4];
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int j = 0; j < 4; ++j) v[h][j] = (s.c[h][j] + off[j / 2]) + carry;
  const float next = __shfl_sync(kFullMask, v[1][3], kWarpSize - 1);  // row 15, column 15
  if constexpr (!kInclusive) {  // each result moves one column on: from the lane before, or a row end
    const float a1 = __shfl_up_sync(kFullMask, v[0][1], 1), a3 = __shfl_up_sync(kFullMask, v[0][3], 1);
    const float b1 = __shfl_up_sync(kFullMask, v[1][1], 1), b3 = __shfl_up_sync(kFullMask, v[1][3], 1);
    const float c1 = __shfl_down_sync(kFullMask, v[0][1], 3), c3 = __shfl_down_sync(kFullMask, v[0][3], 3);
    const float row7 = __shfl_sync(kFullMask, v[1][1], kWarpSize - 1);  // row 7, column 15
    v[0][1] = v[0][0];
    v[0][3] = v[0][2];
    v[1][1] = v[1][0];
    v[1][3] = v[1][2];
    v[0][0] = t > 0 ? a1 : g > 0 ? b1 : carry;
    v[0][2] = t > 0 ? a3 : g > 0 ? b3 : row7;
    v[1][0] = t > 0 ? b1 : c1;
    v[1][2] = t > 0 ? b3 : c3;
  }
  if constexpr (sizeof(OutT) == 2) {
    if (lines && valid == kTileElems) {
      __syncwarp();  // every lane's ldmatrix has read the tile
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int r = 0; r < 2; ++r)
          *reinterpret_cast<__half2*>(tile + (g + 8 * r) * kTile + 8 * h + 2 * t) =
              __floats2half2_rn(v[h][2 * r], v[h][2 * r + 1]);
      __syncwarp();
      __stcs(reinterpret_cast<uint4*>(out) + lane, reinterpret_cast<const uint4*>(tile)[lane]);
      return next;
    }
  }
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int e = (g + 8 * r) * kTile + 8 * h + 2 * t;
      const OutT x = from_float<OutT>(v[h][2 * r]), y = from_float<OutT>(v[h][2 * r + 1]);
      if (pairs && e + 1 < valid) {
        if constexpr (sizeof(OutT) == 4) {
          __stcs(reinterpret_cast<float2*>(out + e), make_float2(x, y));
        } else {
          const __half2 p = __halves2half2(x, y);
          __stcs(reinterpret_cast<unsigned*>(out + e), *reinterpret_cast<const unsigned*>(&p));
        }
      } else {
        if (e < valid) out[e] = x;
        if (e + 1 < valid) out[e + 1] = y;
      }
    }
  return next;
}

}  // namespace tcu::tc
