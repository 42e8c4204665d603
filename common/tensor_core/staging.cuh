#pragma once
// Staging: fp16 tiles from global into aligned shared memory (WMMA needs 32-byte aligned tiles; a
// segment of 17 at d_in + 17 is not): lane L loads tile elements [8L, 8L + 8) (a Piece, one 16-byte
// vector where the address allows) and stores them; zeros past the end. Also: stores, the round pipeline.
#include <cuda_fp16.h>

#include <cstdint>

#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/tile_geometry.hpp"

namespace tcu::tc {

// How loads hint the cache: read-only data path (reused data) or streaming (read once).
enum class Cache { read_only, streaming };

// p[0 … valid−1] then zeros; one 16-byte load when `vector_ok` (p aligned) and all 8 are valid.
template <Cache kCache = Cache::read_only>
__device__ __forceinline__ Piece load_piece(const __half* p, std::int64_t valid, bool vector_ok) {
  if (vector_ok && valid >= kPieceElems) {
    const uint4* q = reinterpret_cast<const uint4*>(p);
    return Piece{kCache == Cache::streaming ? __ldcs(q) : __ldg(q)};
  }
  alignas(16) __half h[kPieceElems];
#pragma unroll
  for (int i = 0; i < kPieceElems; ++i) h[i] = (i < valid) ? p[i] : __float2half(0.0f);
  return Piece{*reinterpret_cast<const uint4*>(h)};
}
template <Cache kCache = Cache::read_only>
__device__ __forceinline__ Piece load_piece(const __half* p, std::int64_t valid) {
  return load_piece<kCache>(p, valid, aligned16(p));
}

// Tile element e = p[first + e] for e in [0, 256), zeros at and past p[len].
template <Cache kCache = Cache::read_only>
__device__ __forceinline__ Piece load_contiguous(const __half* p, std::int64_t len, std::int64_t first, int lane) {
  const PieceSource src = contiguous_source(len, first, lane);
  if (src.valid <= 0) return zero_piece();
  return load_piece<kCache>(p + src.offset, src.valid);
}
// The same with the alignment of p known once for the whole walk (p 16-byte aligned and
// `first` a multiple of 8: every piece is aligned).
template <Cache kCache = Cache::read_only>
__device__ __forceinline__ Piece load_contiguous(const __half* p, std::int64_t len, std::int64_t first, int lane,
                                                 bool p_aligned16) {
  const PieceSource src = contiguous_source(len, first, lane);
  if (src.valid <= 0) return zero_piece();
  return load_piece<kCache>(p + src.offset, src.valid, p_aligned16);
}

// The lane's piece to tile elements [8·lane, 8·lane + 8) (one 16-byte store). Call
// __syncwarp() before WMMA reads the tile.
__device__ __forceinline__ void store_piece(__half* tile, const Piece& piece, int lane) {
  *reinterpret_cast<uint4*>(tile + lane * kPieceElems) = piece.v;
}

// Eight consecutive results of one lane to dst[0 … 7]: streaming 16-byte stores where dst is
// aligned and all eight lie inside [0, valid), element by element otherwise (the tail).
template <class OutT>
__device__ __forceinline__ void store8(OutT* dst, const float (&v)[8], std::int64_t valid) {
  static_assert(sizeof(OutT) == 2 || sizeof(OutT) == 4, "fp16 or fp32 outputs");
  if (valid >= 8 && aligned16(dst)) {
    alignas(16) OutT o[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) o[j] = from_float<OutT>(v[j]);
#pragma unroll
    for (int h = 0; h < static_cast<int>(8 * sizeof(OutT) / 16); ++h)
      __stcs(reinterpret_cast<uint4*>(dst) + h, reinterpret_cast<const uint4*>(o)[h]);
  } else {
    for (int j = 0; j < 8 && j < valid; ++j) dst[j] = from_float<OutT>(v[j]);
  }
}

// ---- the round pipeline: the NEXT round's global loads are in flight during a round's work ----
//   load(r0) │ stage │ load(r1) │ work(r0) │ stage │ load(r2) │ work(r1) │ …
// load(walk): loads into registers; stage(): into shared memory; work(walk): shared memory only.
// Rounds first, first + stride, … below count (a warp's grid-stride share of `count` rounds).
struct StridedRounds {
  std::int64_t round, stride, count;
  __device__ bool done() const { return round >= count; }
  __device__ void advance() { round += stride; }
};

template <class Cursor, class Load, class Stage, class Work>
__device__ __forceinline__ void run_round_pipeline(Cursor walk, Load&& load, Stage&& stage, Work&& work) {
  if (!walk.done()) load(walk);
  while (!walk.done()) {
    stage();
    __syncwarp();  // the round is in shared memory for every lane
    const Cursor now = walk;
    walk.advance();
    if (!walk.done()) load(walk);  // the next round, in flight during work(now)
    work(now);
    __syncwarp();  // every lane is done with the round before the next one is staged
  }
}

}  // namespace tcu::tc
