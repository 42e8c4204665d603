#pragma once
// Tile maths on the host and the device (the host tests check what the kernels compute): where a
// staged tile's elements come from (lane L loads the "piece" [8L, 8L + 8), row L/2) and the hi/lo split.
#include <cuda_fp16.h>

#include <cstdint>

#include "common/int_math.hpp"
#include "common/tensor_core/constant_matrices.hpp"  // kTile, kTileElems

namespace tcu::tc {

inline constexpr int kWarpSize = 32;
// The block of the block-level kernels (Alg. 4 and 7, chapters 04 and 05): 8 warps.
inline constexpr int kBlockWarps = 8;
inline constexpr int kBlockThreads = kBlockWarps * kWarpSize;  // 256
inline constexpr int kPieceElems = 8;  // halves per lane per tile: one 16-byte vector
static_assert(kPieceElems * kWarpSize == kTileElems, "a warp's pieces are one tile");

TCU_HOST_DEVICE constexpr int piece_row(int lane) { return lane / 2; }
TCU_HOST_DEVICE constexpr int piece_col(int lane) { return (lane % 2) * kPieceElems; }

// A lane's piece: elements [offset, offset + valid) of the array, then zeros (valid <= 0: all
// zeros; valid >= 8: all eight from the array).
struct PieceSource {
  std::int64_t offset;
  std::int64_t valid;
};

#ifdef __CUDACC__
// ---- device only: a thread's place in its warp and block, a lane's Piece (8 consecutive fp16
// values, one 16-byte vector), a result's output type: all that a kernel walking fp16 data without
// the tensor cores needs.
inline constexpr unsigned kFullMask = 0xffffffffu;
__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31u); }
__device__ __forceinline__ int warp_in_block() { return static_cast<int>(threadIdx.x >> 5); }
struct Piece {
  uint4 v;  // 8 fp16 values
};
__device__ __forceinline__ Piece zero_piece() { return Piece{make_uint4(0, 0, 0, 0)}; }
__device__ __forceinline__ bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }
template <class OutT>  // a result in the output type (fp16 outputs round once, here)
__device__ __forceinline__ OutT from_float(float v) {
  if constexpr (sizeof(OutT) == 2) return __float2half_rn(v); else return v;
}
// fp32 sum of the 8 halves of a piece (shuffle kernels and fp32 fallbacks).
__device__ __forceinline__ float piece_sum(const Piece& piece) {
  const __half2* h = reinterpret_cast<const __half2*>(&piece.v);
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 4; ++i) s += __low2float(h[i]) + __high2float(h[i]);
  return s;
}
#endif

// Row r of the tile = segment first_segment + r, columns [first_col, first_col + 16) of it.
TCU_HOST_DEVICE constexpr PieceSource segment_rows_source(std::int64_t num_segments, std::int64_t segment_size,
                                                          std::int64_t first_segment, std::int64_t first_col,
                                                          int lane) {
  const std::int64_t seg = first_segment + piece_row(lane);
  const std::int64_t col = first_col + piece_col(lane);
  if (seg >= num_segments || col >= segment_size) return PieceSource{0, 0};
  return PieceSource{seg * segment_size + col, segment_size - col};
}

// Tile element e = p[first + e], for an array of len elements.
TCU_HOST_DEVICE constexpr PieceSource contiguous_source(std::int64_t len, std::int64_t first, int lane) {
  const std::int64_t at = first + static_cast<std::int64_t>(lane) * kPieceElems;
  if (at >= len) return PieceSource{0, 0};
  return PieceSource{at, len - at};
}

// ---- the hi/lo split: an fp32 accumulator as an fp16 MMA operand without losing the 13 bits fp16
// lacks (docs/algorithms.md, "The hi/lo split"): v = hi + lo + e, hi = fp16(v), lo = fp16(v − hi),
// |e| <= 2^-22·|v| + 2^-25, and X·C = hi·C + lo·C. Only |v| <= 2^15 splits (hi cannot round to
// infinity); above it, and for NaN/Inf, the caller does that step in fp32 on the CUDA cores.

inline constexpr float kSplitLimit = 32768.0f;  // 2^15

// Does v split into hi + lo (|v| <= 2^15; false for NaN and ±Inf)?
TCU_HOST_DEVICE inline bool splits(float v) { return v <= kSplitLimit && v >= -kSplitLimit; }

struct HiLo {
  __half hi, lo;
};
// hi = fp16(v), lo = fp16(v − hi). Only meaningful where splits(v).
TCU_HOST_DEVICE inline HiLo split_hi_lo(float v) {
  const __half hi = __float2half_rn(v);
  return HiLo{hi, __float2half_rn(v - __half2float(hi))};
}

// The bound on |v − (hi + lo)| the tests and tolerance models use.
TCU_HOST_DEVICE constexpr double split_error_bound(double abs_v) {
  return abs_v * 0x1p-22 + 0x1p-25;
}

}  // namespace tcu::tc
