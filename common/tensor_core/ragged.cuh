#pragma once
// Ragged segments: CUB's begin/end offsets, walked as a flat array (chapter 05's lessons 5 and 6;
// docs/algorithms.md, "Ragged segments"). Primitives only: the offsets, the covered range found
// on the device, a chunk of it and a masked 8-element load.
#include <cuda_fp16.h>

#include <cstdint>

#include "common/int_math.hpp"
#include "common/tensor_core/tile_geometry.hpp"

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
  // Read ahead: load() issues the loads and returns at once; decode() is where the warp waits for
  // them, so a read-ahead decoded a tile later costs no wait.
  struct Raw {
    T b, e;
  };
  __device__ Raw load(std::int64_t s) const { return Raw{__ldg(b + s), __ldg(e + s)}; }
  __device__ void decode(const Raw& r, std::int64_t& begin_s, std::int64_t& end_s) const {  // one compare
    begin_s = r.b;
    end_s = r.e > r.b ? r.e : r.b;
  }
  __device__ void get(std::int64_t s, std::int64_t& begin_s, std::int64_t& end_s) const {  // both, at once
    decode(load(s), begin_s, end_s);
  }
  __device__ void prefetch(std::int64_t s) const {  // the lines of b[s] and e[s] into L1
    asm volatile("prefetch.global.L1 [%0];\n\tprefetch.global.L1 [%1];" ::"l"(b + s), "l"(e + s));
  }
};
struct FixedOffsets {  // the fixed-size API: segment s = [s·size, (s + 1)·size)
  std::int64_t size;
  __device__ std::int64_t begin(std::int64_t s) const { return s * size; }
  __device__ std::int64_t end(std::int64_t s) const { return (s + 1) * size; }
  struct Raw {
    std::int64_t b;
  };
  __device__ Raw load(std::int64_t s) const { return Raw{s * size}; }
  __device__ void decode(const Raw& r, std::int64_t& begin_s, std::int64_t& end_s) const {
    begin_s = r.b;
    end_s = r.b + size;
  }
  __device__ void get(std::int64_t s, std::int64_t& begin_s, std::int64_t& end_s) const {
    decode(load(s), begin_s, end_s);
  }
  __device__ void prefetch(std::int64_t) const {}
};

struct RaggedRange {
  unsigned long long lo;  // the first element of a non-empty segment (all ones: none)
  unsigned long long hi;  // one past the last element of a non-empty segment
  unsigned disordered;    // 1: a segment starts before the previous one ends (the fallback runs)
  long long first, last;  // the first and the last non-empty segment (-1: none)
  unsigned walked;        // lesson 6: blocks done walking (the last one checks their spans abut)
};

// A chunk of the covered range: [first, last), empty when first >= last.
struct ArrayChunk {
  std::int64_t first, last;
};

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

// The first i in [a, z) with pred(i), z if none (pred false … true over [a, z)), by one warp: 32
// probes a round, each round waiting once for its loads (a binary search waits 20 times).
template <class Pred>
__device__ std::int64_t warp_search(std::int64_t a, std::int64_t z, Pred&& pred, int lane) {
  while (a < z) {  // the answer is in [a, z]; z is true or the end
    const std::int64_t step = (z - a + kWarpSize - 1) / kWarpSize;
    const std::int64_t i = a + step * (lane + 1) - 1;
    const unsigned t = __ballot_sync(kFullMask, i >= z || pred(i));
    if (t == 0) return z;
    const int k = __ffs(t) - 1;  // probe k is the first true one: the answer is in (probe k−1, probe k]
    const std::int64_t pk = a + step * (k + 1) - 1;
    a += step * k;
    z = pk < z ? pk : z;
  }
  return a;
}

// Where a walk that starts at element p stands among ordered segments: the first segment that ends
// after p (the one open at p, or the next to start), or an empty one placed at or after p.
template <class Off>
__device__ std::int64_t first_segment_from(const Off& off, std::int64_t ns, std::int64_t p, int lane) {
  return warp_search(0, ns, [&](std::int64_t s) { return off.end(s) > p || off.begin(s) >= p; }, lane);
}

}  // namespace tcu::tc
