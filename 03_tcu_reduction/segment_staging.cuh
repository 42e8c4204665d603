#pragma once
// Staging 16×16 fp16 tiles of a segmented array into shared memory, zero-padded, from any
// pointer alignment, with 16-byte loads wherever the address allows them. Device-only,
// header-only; chapter 03's warp-level kernels and baselines use it (chapter 04 stages whole
// 4096-element pieces per block instead: 04_tcu_scan/block_pieces.cuh).
//
// Why: wmma::load_matrix_sync needs a 32-byte aligned pointer and ldm a multiple of 8 halves.
// A segment of size 17 starting at d_in + 17 breaks both. Staging copies the tile into an
// aligned shared-memory buffer (ldm 16), where WMMA may load it, and writes zeros where the
// tile runs past a segment or past the array (zeros do not change a sum; for a scan they are
// simply not written back).
//
// The split into "load a piece into registers" and "store the piece to shared memory" lets a
// warp issue several 16-byte global loads before it waits for any (bytes in flight are what
// keeps HBM busy), then store them all.
//
// Every lane owns 8 consecutive elements of the 256 of a tile: lane L holds tile elements
// [8L, 8L+8), i.e. row L/2, columns 8·(L%2) … 8·(L%2)+7 of a row-major 16×16 tile.
//
//   __shared__ __align__(32) __half tile[16 * 16];              // one per warp
//   // (a) rows = 16 segments, columns = 16 elements of each (Reduction16, Reduction16N, Scan16):
//   auto piece = tcu::staging::load_segment_rows(d_in, num_segments, segment_size,
//                                                /*first segment*/ s0, /*first column*/ k0, lane);
//   // (b) 256 consecutive elements of one segment (Reduction256N, Scan256N):
//   auto piece = tcu::staging::load_contiguous(d_in + s * segment_size, segment_size, k0, lane);
//   tcu::staging::store_piece(tile, piece, lane);
//   __syncwarp();
//   wmma::load_matrix_sync(frag, tile, 16);   // row_major: row = segment; col_major: column = segment
//
// Rows of (a) are 32 bytes, so a warp's load touches whole 32-byte sectors even when the
// segments are long (strided rows): DRAM efficiency stays high, only the request count grows.
#include <cuda_fp16.h>

#include <cstdint>

namespace tcu::staging {

inline constexpr int kTile = 16;                  // WMMA m16n16k16
inline constexpr int kTileElems = kTile * kTile;  // 256
inline constexpr int kPieceElems = 8;             // elements per lane: one 16-byte vector

// 8 fp16 values of one lane, as one 16-byte vector.
struct Piece {
  uint4 v;
};

__device__ __forceinline__ Piece zero_piece() { return Piece{make_uint4(0, 0, 0, 0)}; }

// Elements p[0 … valid-1] (valid may be <= 0 or >= 8), zeros after. One 16-byte load when p is
// 16-byte aligned and all 8 are valid; otherwise element by element.
__device__ __forceinline__ Piece load_masked8(const __half* p, long long valid) {
  if (valid >= kPieceElems && (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0)
    return Piece{__ldg(reinterpret_cast<const uint4*>(p))};
  Piece out = zero_piece();
  __half h[kPieceElems];
#pragma unroll
  for (int i = 0; i < kPieceElems; ++i) h[i] = (i < valid) ? p[i] : __float2half(0.0f);
  out.v.x = *reinterpret_cast<const unsigned*>(&h[0]);
  out.v.y = *reinterpret_cast<const unsigned*>(&h[2]);
  out.v.z = *reinterpret_cast<const unsigned*>(&h[4]);
  out.v.w = *reinterpret_cast<const unsigned*>(&h[6]);
  return out;
}

// (a) Row r of the tile = segment first_segment + r, columns = its elements
// [first_col, first_col + 16). Past the last segment or the segment's end: zeros.
__device__ __forceinline__ Piece load_segment_rows(const __half* x, long long num_segments, long long segment_size,
                                                   long long first_segment, long long first_col, int lane) {
  const long long seg = first_segment + (lane >> 1);
  const long long col = first_col + (lane & 1) * kPieceElems;
  if (seg >= num_segments || col >= segment_size) return zero_piece();
  return load_masked8(x + seg * segment_size + col, segment_size - col);
}

// (b) Tile element e = p[first + e] for e in [0, 256), zeros at and past p[len].
__device__ __forceinline__ Piece load_contiguous(const __half* p, long long len, long long first, int lane) {
  const long long at = first + lane * kPieceElems;
  if (at >= len) return zero_piece();
  return load_masked8(p + at, len - at);
}

// Writes the lane's piece to tile elements [8·lane, 8·lane + 8) (16-byte store; the tile must
// be 32-byte aligned for WMMA anyway). Call __syncwarp() before WMMA reads the tile.
__device__ __forceinline__ void store_piece(__half* tile, const Piece& piece, int lane) {
  *reinterpret_cast<uint4*>(tile + lane * kPieceElems) = piece.v;
}

// Sum of the 8 halves of a piece in fp32 (for shuffle reductions and fallbacks).
__device__ __forceinline__ float piece_sum(const Piece& piece) {
  const __half2* h = reinterpret_cast<const __half2*>(&piece.v);
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __half22float2(h[i]);
    s += f.x + f.y;
  }
  return s;
}

}  // namespace tcu::staging
