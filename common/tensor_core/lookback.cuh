#pragma once
// The decoupled look-back (Merrill & Garland) of a single-pass scan: per block tile a 64-bit status
// word, X (not ready) → A (aggregate) → P (inclusive prefix), flag and value in one word (relaxed
// atomics suffice); fixed-point values (counts of 2^-f): the same bits in any order of addition.
#include <cuda/atomic>

#include <cmath>
#include <cstdint>

#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/launch.hpp"

namespace tcu::tc {

enum TileState : unsigned { kStateX = 0, kStateA = 1, kStateP = 2 };
struct StatusWord {  // the value (62 bits, two's complement) above the state (2 bits)
  __device__ static unsigned long long pack(long long q, unsigned state) {
    return (static_cast<unsigned long long>(q) << 2) | state;
  }
  __device__ static unsigned state(unsigned long long w) { return static_cast<unsigned>(w & 3u); }
  __device__ static long long value(unsigned long long w) { return static_cast<long long>(w) >> 2; }
};
using StatusRef = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;
__device__ __forceinline__ void publish(unsigned long long& word, long long q, TileState state) {
  StatusRef(word).store(StatusWord::pack(q, state), cuda::memory_order_relaxed);
}

struct FixedPoint {  // fp32 ↔ fixed point with f fractional bits (scale = 2^f, exact in fp32)
  float scale, inv_scale;
  __device__ long long to_fixed(float v) const { return __float2ll_rn(v * scale); }
  __device__ float to_float(long long q) const { return __ll2float_rn(q) * inv_scale; }
};
// Prefixes of at most `segment_len` fp16 values (|x| < 2^16) need log2(len) + 16 integer bits of the
// word's 62 (2 spare); f <= 24 (every fp16 value is a multiple of 2^-24).
inline FixedPoint fixed_point_for(std::int64_t segment_len) {
  int lg = 0;
  while ((std::int64_t(1) << lg) < segment_len && lg < 62) ++lg;
  const int f = 60 - (lg + 16) > 24 ? 24 : 60 - (lg + 16);
  return FixedPoint{std::ldexp(1.0f, f), std::ldexp(1.0f, -f)};
}

// The look-back of block tile `tile` > 0 by one warp: the sum of its predecessors' values, newest
// first, to the newest P (in every lane); a step reads 4 windows of 32 words, all in flight.
inline constexpr int kLookbackWindows = 4;
inline constexpr int kLookbackStepWords = kLookbackWindows * kWarpSize;
__device__ __forceinline__ long long look_back(unsigned long long* status, long long tile, int lane) {
  long long carry = 0;
  for (long long end = tile;; end -= kLookbackStepWords) {
    unsigned long long w[kLookbackWindows];
#pragma unroll
    for (int j = 0; j < kLookbackWindows; ++j) {
      const long long i = end - (j + 1) * kWarpSize + lane;
      w[j] = i >= 0 ? StatusRef(status[i]).load(cuda::memory_order_relaxed) : StatusWord::pack(0, kStateP);
    }
    int window_p, newest_p;  // the window and lane of the newest P (window_p = kLookbackWindows: none)
    for (;;) {               // spin while a word newer than the newest P is X, re-reading the X words
      window_p = kLookbackWindows;
      newest_p = -1;
      bool blocked = false;
#pragma unroll
      for (int j = 0; j < kLookbackWindows; ++j) {
        const unsigned p = __ballot_sync(kFullMask, StatusWord::state(w[j]) == kStateP);
        const unsigned x = __ballot_sync(kFullMask, StatusWord::state(w[j]) == kStateX);
        if (window_p == kLookbackWindows) {
          const int np = p ? 31 - __clz(p) : -1;
          const unsigned newer = np < 0 ? kFullMask : (np == 31 ? 0u : kFullMask << (np + 1));
          blocked = blocked || (x & newer) != 0;
          if (p) {
            window_p = j;
            newest_p = np;
          }
        }
      }
      if (!blocked) break;
      __nanosleep(32);
#pragma unroll
      for (int j = 0; j < kLookbackWindows; ++j)
        if (StatusWord::state(w[j]) == kStateX)
          w[j] = StatusRef(status[end - (j + 1) * kWarpSize + lane]).load(cuda::memory_order_relaxed);
    }
    long long q = 0;  // the values from the newest P on (all of them without a P)
#pragma unroll
    for (int j = 0; j < kLookbackWindows; ++j)
      if (j < window_p || (j == window_p && lane >= newest_p)) q += StatusWord::value(w[j]);
#pragma unroll
    for (int d = kWarpSize / 2; d > 0; d /= 2) q += __shfl_xor_sync(kFullMask, q, d);
    carry += q;
    if (window_p < kLookbackWindows) return carry;
  }
}

// The look-back's state, enqueued on `stream`: a ticket counter, then a status word per block tile, all X.
inline cudaError_t lookback_state(TempBuffer<unsigned long long>& state, std::int64_t tiles, cudaStream_t stream) {
  if (cudaError_t e = state.allocate(tiles + 1, stream); e != cudaSuccess) return e;
  return cudaMemsetAsync(state.get(), 0, static_cast<std::size_t>(tiles + 1) * sizeof(unsigned long long), stream);
}

}  // namespace tcu::tc
