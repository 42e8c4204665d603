#pragma once
// Ragged segments: CUB's begin/end offsets on the block tiles of chapter 05's lesson 5
// (docs/algorithms.md, "Ragged segments"). Primitives only; the kernels are in the lesson file.
//
//   OffsetArrays / FixedOffsets   segment s = [begin(s), end(s)); end(s) is clamped to begin(s),
//                                 so an empty segment (end <= begin) has no element
//   RaggedRange                   what a first pass finds on the device: the covered range
//                                 [lo, hi) of the non-empty segments, and whether they are ordered
//   chunk_of                      the range cut into one chunk per block, whole block tiles
//   first_ending_after            binary search of an element in the (ordered) offsets
//   mark_block_tile               the block's bitmaps for a block tile: heads (segment starts),
//                                 off (elements outside every segment or outside the chunk) and
//                                 the last element of each segment (reductions)
//   scan_ragged_tile              the flagged scan of one tile by its warp: A·U on the tensor
//                                 cores when segment starts fall on row starts only, else each
//                                 lane scans its 8 elements; a flagged shuffle scan joins the lanes
#include <cuda_fp16.h>

#include <cstdint>

#include "common/int_math.hpp"
#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/staging.cuh"

namespace tcu::tc {

template <class T>  // std::int32_t or std::int64_t, device pointers
struct OffsetArrays {
  const T* b;
  const T* e;
  __device__ std::int64_t begin(std::int64_t s) const { return static_cast<std::int64_t>(__ldg(b + s)); }
  __device__ std::int64_t end(std::int64_t s) const {
    const std::int64_t x = static_cast<std::int64_t>(__ldg(e + s)), y = begin(s);
    return x > y ? x : y;
  }
};
struct FixedOffsets {  // the fixed-size API: segment s = [s·size, (s + 1)·size)
  std::int64_t size;
  __device__ std::int64_t begin(std::int64_t s) const { return s * size; }
  __device__ std::int64_t end(std::int64_t s) const { return (s + 1) * size; }
};

struct RaggedRange {
  unsigned long long lo;  // the first element of a non-empty segment (all ones: none)
  unsigned long long hi;  // one past the last element of a non-empty segment
  unsigned disordered;    // 1: a segment starts before the previous one ends
};

// A block tile of this lesson: 8 warps × kRaggedWarpTiles tiles, 4096 consecutive elements.
inline constexpr int kRaggedWarpTiles = 2;
inline constexpr int kRaggedTileElems = kBlockWarps * kRaggedWarpTiles * kTileElems;
inline constexpr int kRaggedWords = kRaggedTileElems / 32;  // one bit per element
static_assert(kRaggedTileElems % 32 == 0 && is_pow2(kRaggedTileElems), "bitmaps of whole words");

// Chunk b of `chunks`: [first, last) of [lo, hi), whole block tiles (the first and the last cut
// at lo and hi); empty when first >= last.
struct Chunk {
  std::int64_t first, last;
};
__device__ __forceinline__ Chunk chunk_of(const RaggedRange& r, int chunks, int b) {
  if (r.hi <= r.lo) return Chunk{0, 0};
  const std::int64_t lo = static_cast<std::int64_t>(r.lo), hi = static_cast<std::int64_t>(r.hi);
  const std::int64_t t0 = lo / kRaggedTileElems * kRaggedTileElems;
  const std::int64_t len = round_up(ceil_div(hi - t0, chunks), kRaggedTileElems);
  const std::int64_t c0 = t0 + b * len, c1 = c0 + len;
  return Chunk{c0 > lo ? c0 : lo, c1 < hi ? c1 : hi};
}

// The first segment whose end is past element p (ordered segments: ends never decrease).
template <class Off>
__device__ std::int64_t first_ending_after(const Off& off, std::int64_t ns, std::int64_t p) {
  std::int64_t a = 0, z = ns;
  while (a < z) {
    const std::int64_t m = a + (z - a) / 2;
    if (off.end(m) > p) z = m;
    else a = m + 1;
  }
  return a;
}

// Bits [from, to) of a block tile's bitmap (shared memory, other threads set bits of the same words).
__device__ __forceinline__ void set_bits(unsigned* bits, int from, int to) {
  while (from < to) {
    const int w = from >> 5, top = to - (w << 5) < 32 ? to - (w << 5) : 32;
    const unsigned upper = top == 32 ? ~0u : (1u << top) - 1u;
    atomicOr(bits + w, upper & ~((1u << (from & 31)) - 1u));
    from = (w + 1) << 5;
  }
}
// The 8 bits of elements [first, first + 8) (first a multiple of 8).
__device__ __forceinline__ unsigned bits8(const unsigned* bits, int first) {
  return (bits[first >> 5] >> (first & 31)) & 0xffu;
}

struct RaggedMarks {
  unsigned head[kRaggedWords];  // a segment starts here
  unsigned off[kRaggedWords];   // not part of the chunk's segments: neither read nor written
  unsigned last[kRaggedWords];  // the last element of a segment (reductions)
  long long next;               // the first segment starting at or after the block tile
};

// The marks of block tile [t0, t0 + kRaggedTileElems), of which the chunk owns [va, vb), by the
// whole block, for the segments from `cur` on until one starts at or after the block tile's end;
// kLast: also each segment's last element, with its index − cur in rel[]. Returns (every thread)
// the first segment that starts at or after the block tile's end (ns if none).
template <bool kLast, class Off>
__device__ std::int64_t mark_block_tile(RaggedMarks& mk, unsigned* rel, const Off& off, std::int64_t ns,
                                        std::int64_t cur, std::int64_t t0, std::int64_t va, std::int64_t vb) {
  const std::int64_t t1 = t0 + kRaggedTileElems;
  for (int i = threadIdx.x; i < kRaggedWords; i += blockDim.x) mk.head[i] = mk.off[i] = mk.last[i] = 0;
  if (threadIdx.x == 0) mk.next = ns;
  __syncthreads();
  if (threadIdx.x == 0) {  // outside the chunk
    set_bits(mk.off, 0, static_cast<int>(va - t0));
    set_bits(mk.off, static_cast<int>(vb - t0), kRaggedTileElems);
  }
  for (std::int64_t s = cur + threadIdx.x; s < ns; s += blockDim.x) {
    const std::int64_t b = off.begin(s);
    if (b >= t1) {
      atomicMin(&mk.next, static_cast<long long>(s));
      break;
    }
    const std::int64_t e = off.end(s);
    if (e > b) {
      if (b >= va && b < vb) set_bits(mk.head, static_cast<int>(b - t0), static_cast<int>(b - t0 + 1));
      if (kLast && e - 1 >= va && e - 1 < vb) {
        set_bits(mk.last, static_cast<int>(e - 1 - t0), static_cast<int>(e - t0));
        rel[e - 1 - t0] = static_cast<unsigned>(s - cur);
      }
    }
    const std::int64_t g0 = e > va ? e : va, gap_end = s + 1 < ns ? off.begin(s + 1) : vb;  // the gap after s
    const std::int64_t g1 = gap_end < vb ? gap_end : vb;
    if (g0 < g1) set_bits(mk.off, static_cast<int>(g0 - t0), static_cast<int>(g1 - t0));
  }
  __syncthreads();
  return mk.next;
}

// Elements [first, first + 8) of `in`, zero outside [va, vb): one 16-byte load when all eight are
// inside and in is 16-byte aligned (first is a multiple of 8), element by element otherwise.
__device__ __forceinline__ Piece load_piece_within(const __half* in, std::int64_t first, std::int64_t va,
                                                   std::int64_t vb, bool in_aligned) {
  if (in_aligned && first >= va && first + kPieceElems <= vb)
    return Piece{__ldcs(reinterpret_cast<const uint4*>(in + first))};
  alignas(16) __half h[kPieceElems];
#pragma unroll
  for (int i = 0; i < kPieceElems; ++i)
    h[i] = (first + i >= va && first + i < vb) ? in[first + i] : __float2half(0.0f);
  return Piece{*reinterpret_cast<const uint4*>(h)};
}
// The piece with the elements whose `off` bit is set zeroed, as 8 floats.
__device__ __forceinline__ void mask_piece(Piece& p, unsigned off8, float (&x)[8]) {
  __half* h = reinterpret_cast<__half*>(&p.v);
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    if ((off8 >> j) & 1u) h[j] = __float2half(0.0f);
    x[j] = __half2float(h[j]);
  }
}

// The flagged scan of one staged tile by its warp (lane L: elements 8L … 8L+7, heads8 its head
// bits, x their values). `carry` is the value before the tile, `carry_head` whether a head came
// before in the warp. Out: v[j] = the sum from the last head at or before element j (plus carry
// when there is none in the warp), head_seen bit j = a head at or before element j in the warp.
// Step 1: R = A·U (row scans, tensor cores) when no segment starts inside a row — lane 2i+1's
// part of row i is R[i][8 + j] − R[i][7], both in one segment — else each lane scans its 8
// elements. Step 2: a flagged shuffle scan of the 32 lane totals. Step 3: v = prefix + offset
// (+ carry before the first head).
__device__ __forceinline__ void scan_ragged_tile(const __half* tile, float* acc, const FragBRow& fu, unsigned heads8,
                                                 const float (&x)[8], float carry, bool carry_head, float (&v)[8],
                                                 unsigned& head_seen, int lane) {
  float r[8];
  const unsigned inside = heads8 & ((lane & 1) ? 0xffu : 0xfeu);  // a start that is not a row start
  if (!__any_sync(kFullMask, inside != 0)) {
    FragA a;
    FragAcc c;
    wmma::load_matrix_sync(a, tile, kTile);
    wmma::fill_fragment(c, 0.0f);
    wmma::mma_sync(c, a, fu, c);  // every row scanned: R = A·U
    wmma::store_matrix_sync(acc, c, kTile, wmma::mem_row_major);
    __syncwarp();
    const float* row = acc + (lane / 2) * kTile;
    const float before = (lane & 1) ? row[kPieceElems - 1] : 0.0f;
#pragma unroll
    for (int j = 0; j < 8; ++j) r[j] = row[(lane & 1) * kPieceElems + j] - before;
    __syncwarp();
  } else {
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if ((heads8 >> j) & 1u) s = 0.0f;
      s += x[j];
      r[j] = s;
    }
  }
  float inc = r[7];  // the lane's total after its last head
  bool hd = heads8 != 0;
#pragma unroll
  for (int d = 1; d < kWarpSize; d *= 2) {
    const float o = __shfl_up_sync(kFullMask, inc, d);
    const bool oh = __shfl_up_sync(kFullMask, hd, d);
    if (lane >= d) {
      if (!hd) inc = o + inc;
      hd = hd || oh;
    }
  }
  float ex = __shfl_up_sync(kFullMask, inc, 1);  // the lanes before, from their last head
  bool ex_head = __shfl_up_sync(kFullMask, hd, 1);
  if (lane == 0) {
    ex = 0.0f;
    ex_head = false;
  }
  head_seen = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const bool started = (heads8 & ((2u << j) - 1u)) != 0;
    v[j] = started ? r[j] : ex_head ? r[j] + ex : (r[j] + ex) + carry;
    if (started || ex_head || carry_head) head_seen |= 1u << j;
  }
}

}  // namespace tcu::tc
