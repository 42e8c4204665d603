#pragma once
// Ragged segments: CUB's begin/end offsets, walked as a flat array (chapter 05's lessons 5 and 6;
// docs/algorithms.md, "Ragged segments"). Primitives only: the offsets, the covered range found
// on the device, its chunks, a binary search, bitmaps of a tile and a masked 8-element load.
#include <cuda_fp16.h>

#include <cstdint>

#include "common/int_math.hpp"
#include "common/tensor_core/staging.cuh"

namespace tcu::tc {

template <class T>  // std::int32_t or std::int64_t device arrays; end(s) clamped to begin(s): empty, no element
struct OffsetArrays {
  const T* b;
  const T* e;
  __device__ std::int64_t begin(std::int64_t s) const { return static_cast<std::int64_t>(__ldg(b + s)); }
  __device__ std::int64_t end(std::int64_t s) const {
    const std::int64_t x = static_cast<std::int64_t>(__ldg(e + s)), y = begin(s);
    return x > y ? x : y;
  }
  __device__ void get(std::int64_t s, std::int64_t& begin_s, std::int64_t& end_s) const {  // both, one compare
    const T x = __ldg(b + s), y = __ldg(e + s);
    begin_s = x;
    end_s = y > x ? y : x;
  }
};
struct FixedOffsets {  // the fixed-size API: segment s = [s·size, (s + 1)·size)
  std::int64_t size;
  __device__ std::int64_t begin(std::int64_t s) const { return s * size; }
  __device__ std::int64_t end(std::int64_t s) const { return (s + 1) * size; }
  __device__ void get(std::int64_t s, std::int64_t& begin_s, std::int64_t& end_s) const {
    begin_s = s * size;
    end_s = begin_s + size;
  }
};

struct RaggedRange {
  unsigned long long lo;  // the first element of a non-empty segment (all ones: none)
  unsigned long long hi;  // one past the last element of a non-empty segment
  unsigned disordered;    // 1: a segment starts before the previous one ends
};

// Chunk b of `chunks`: [first, last) of [lo, hi) in whole multiples of kAlign elements (the
// first and the last cut at lo and hi); empty when first >= last.
struct ArrayChunk {
  std::int64_t first, last;
};
template <int kAlign>
__device__ __forceinline__ ArrayChunk array_chunk(const RaggedRange& r, std::int64_t chunks, std::int64_t b) {
  if (r.hi <= r.lo) return ArrayChunk{0, 0};
  const std::int64_t lo = static_cast<std::int64_t>(r.lo), hi = static_cast<std::int64_t>(r.hi);
  const std::int64_t t0 = lo / kAlign * kAlign;
  const std::int64_t len = round_up(ceil_div(hi - t0, chunks), std::int64_t(kAlign));
  const std::int64_t c0 = t0 + b * len, c1 = c0 + len;
  return ArrayChunk{c0 > lo ? c0 : lo, c1 < hi ? c1 : hi};
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

// Bits [from, to) of a bitmap in shared memory (other threads set bits of the same words).
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

}  // namespace tcu::tc
