// What lessons 5 and 6 (ragged segments) share and do not teach: the block that reads the offsets
// at the two ends (the covered range), and the warp-per-segment fallback for segments that are
// unordered or overlap.
#include <climits>

#include "05_block_grid/kernels/ragged_launchers.hpp"
#include "common/tensor_core/dependent_launch.cuh"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/ragged.cuh"

namespace tcu::detail::device {
namespace {

// The range of the fixed-size API: segment s is [s·size, (s + 1)·size).
__global__ void fixed_range_kernel(tc::RaggedRange* range, std::int64_t ns, std::int64_t size) {
  tc::launch_dependents();  // the next kernel waits for the range in tc::wait_prior_grid()
  *range = tc::RaggedRange{0, static_cast<unsigned long long>(ns * size), 0, 0, ns - 1};
}

// The range, from the two ends only: one block reads the offsets from the front up to the
// first non-empty segment and from the back down to the last, both ends at once, checks the order
// of what it reads and writes 0 for the empty segments there. The walk checks the order of
// everything between, so the offsets are read once. More than kEndsWindows × kEndsThreads empty
// segments at an end: the fallback takes the call (correct, slower).
constexpr int kEndsThreads = 1024, kEndsWindows = 16;
template <class T>
__global__ void __launch_bounds__(kEndsThreads)
    ragged_ends_kernel(const T* __restrict__ begin, const T* __restrict__ end, std::int64_t ns,
                       tc::RaggedRange* range, float* zero_empty) {
  __shared__ long long found[2];  // the first and the last non-empty segment
  __shared__ long long edge[2];   // the first one's begin, the last one's end
  tc::launch_dependents();        // the next kernel waits for the range in tc::wait_prior_grid()
  if (threadIdx.x == 0) found[0] = LLONG_MAX, found[1] = -1;
  __syncthreads();
  bool disordered = false, fallback = false, all_read = false;
  bool open[2] = {true, true};      // this end still looks for its non-empty segment
  std::int64_t mine_s[2] = {-1, -1}, mine_edge[2] = {0, 0};  // what this thread found there
  for (int w = 0; open[0] || open[1]; ++w) {
    if (w == kEndsWindows) {
      fallback = true;
      break;
    }
    bool non_empty[2] = {false, false};
#pragma unroll
    for (int side = 0; side < 2; ++side) {  // the front's window and the back's, their loads together
      const std::int64_t s = side == 0 ? std::int64_t(w) * kEndsThreads + threadIdx.x
                                       : ns - 1 - std::int64_t(w) * kEndsThreads - threadIdx.x;
      if (!open[side] || s < 0 || s >= ns) continue;
      const std::int64_t b = begin[s], e = end[s];
      non_empty[side] = e > b;
      if (non_empty[side]) {
        disordered |= b < 0;
        if (side == 0) atomicMin(&found[0], static_cast<long long>(s));
        else atomicMax(&found[1], static_cast<long long>(s));
        mine_s[side] = s, mine_edge[side] = side == 0 ? b : e;
      } else if (zero_empty) {
        zero_empty[s] = 0.0f;  // an empty segment sums to 0 (scans write nothing)
      }
      if (s + 1 < ns && (e > b ? e : b) > static_cast<std::int64_t>(begin[s + 1])) disordered = true;
    }
    const bool front = __syncthreads_or(non_empty[0]), back = __syncthreads_or(non_empty[1]);
    open[0] = open[0] && !front;
    open[1] = open[1] && !back;
    if (open[0] && (w + 1) * std::int64_t(kEndsThreads) >= ns) {  // every segment read, all empty
      all_read = true;
      break;
    }
  }
  disordered = __syncthreads_or(disordered || fallback);  // found[] is final here
  for (int side = 0; side < 2; ++side)
    if (mine_s[side] >= 0 && mine_s[side] == found[side]) edge[side] = mine_edge[side];
  __syncthreads();
  if (threadIdx.x == 0) {
    tc::RaggedRange r{~0ull, 0ull, disordered ? 1u : 0u, -1, -1};
    if (!all_read && !disordered) {
      r.first = found[0], r.last = found[1];
      r.lo = static_cast<unsigned long long>(edge[0]);
      r.hi = static_cast<unsigned long long>(edge[1]);
      if (r.hi <= r.lo) r.disordered = 1;  // ordered segments: the last one ends after the first one starts
    }
    *range = r;
  }
}

// Σ in[from … to) by one warp: lane l adds from + l, from + l + 32, … in double, then a fixed
// shuffle tree: the same bits every run.
__device__ float warp_sum(const __half* in, std::int64_t from, std::int64_t to, int lane) {
  double s = 0.0;
  for (std::int64_t i = from + lane; i < to; i += tc::kWarpSize) s += __half2float(in[i]);
#pragma unroll
  for (int o = tc::kWarpSize / 2; o > 0; o /= 2) s += __shfl_down_sync(tc::kFullMask, s, o);
  return static_cast<float>(s);  // lane 0's
}

template <class T>
__global__ void reduce_fallback_kernel(const __half* __restrict__ in, float* __restrict__ out, std::int64_t ns,
                                       tc::OffsetArrays<T> off, const tc::RaggedRange* range) {
  tc::wait_prior_grid();  // every check done, every output of the walk written
  if (!range->disordered) return;
  const int lane = tc::lane_id();
  const std::int64_t warps = std::int64_t(gridDim.x) * tc::kBlockWarps;
  for (std::int64_t s = blockIdx.x * std::int64_t(tc::kBlockWarps) + tc::warp_in_block(); s < ns; s += warps) {
    const float sum = warp_sum(in, off.begin(s), off.end(s), lane);
    if (lane == 0) out[s] = sum;
  }
}
template <bool kInclusive, class OutT, class T>
__global__ void scan_fallback_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t ns,
                                     tc::OffsetArrays<T> off, const tc::RaggedRange* range) {
  if (!range->disordered) return;
  const int lane = tc::lane_id();
  const std::int64_t warps = std::int64_t(gridDim.x) * tc::kBlockWarps;
  for (std::int64_t s = blockIdx.x * std::int64_t(tc::kBlockWarps) + tc::warp_in_block(); s < ns; s += warps) {
    const std::int64_t e = off.end(s);
    float carry = 0.0f;
    for (std::int64_t base = off.begin(s); base < e; base += tc::kWarpSize) {
      const std::int64_t i = base + lane;
      float v = i < e ? __half2float(in[i]) : 0.0f;
#pragma unroll
      for (int d = 1; d < tc::kWarpSize; d *= 2) {
        const float o = __shfl_up_sync(tc::kFullMask, v, d);
        if (lane >= d) v = o + v;
      }
      v += carry;
      const float prev0 = __shfl_up_sync(tc::kFullMask, v, 1);
      if (i < e) out[i] = tc::from_float<OutT>(kInclusive ? v : lane == 0 ? carry : prev0);
      carry = __shfl_sync(tc::kFullMask, v, tc::kWarpSize - 1);
    }
  }
}

unsigned fallback_grid(std::int64_t ns) { return tc::grid_for(ceil_div(ns, tc::kBlockWarps), 8); }  // a wave at most

}  // namespace

template <class T>
cudaError_t find_ragged_ends(tc::RaggedRange* range, const T* begin, const T* end, std::int64_t ns, float* zero_empty,
                             cudaStream_t stream) {
  ragged_ends_kernel<T><<<1, kEndsThreads, 0, stream>>>(begin, end, ns, range, zero_empty);
  return cudaGetLastError();
}
cudaError_t fixed_ragged_range(tc::RaggedRange* range, std::int64_t ns, std::int64_t size, cudaStream_t stream) {
  fixed_range_kernel<<<1, 1, 0, stream>>>(range, ns, size);
  return cudaGetLastError();
}
template <class T>
cudaError_t ragged_reduce_fallback(const __half* in, float* out, std::int64_t ns, const T* begin, const T* end,
                                   const tc::RaggedRange* range, cudaStream_t stream) {
  return tc::launch_dependent(reduce_fallback_kernel<T>, fallback_grid(ns), tc::kBlockThreads, stream, in, out, ns,
                              tc::OffsetArrays<T>{begin, end}, range);
}
template <class OutT, class T>
cudaError_t ragged_scan_fallback(const __half* in, OutT* out, std::int64_t ns, const T* begin, const T* end,
                                 bool inclusive, const tc::RaggedRange* range, cudaStream_t stream) {
  const tc::OffsetArrays<T> off{begin, end};
  auto* k = inclusive ? scan_fallback_kernel<true, OutT, T> : scan_fallback_kernel<false, OutT, T>;
  k<<<fallback_grid(ns), tc::kBlockThreads, 0, stream>>>(in, out, ns, off, range);
  return cudaGetLastError();
}

#define TCU_RAGGED_COMMON(T)                                                                                      \
  template cudaError_t find_ragged_ends<T>(tc::RaggedRange*, const T*, const T*, std::int64_t, float*,            \
                                           cudaStream_t);                                                         \
  template cudaError_t ragged_reduce_fallback<T>(const __half*, float*, std::int64_t, const T*, const T*,         \
                                                 const tc::RaggedRange*, cudaStream_t);                           \
  template cudaError_t ragged_scan_fallback<float, T>(const __half*, float*, std::int64_t, const T*, const T*,    \
                                                      bool, const tc::RaggedRange*, cudaStream_t);                \
  template cudaError_t ragged_scan_fallback<__half, T>(const __half*, __half*, std::int64_t, const T*, const T*,  \
                                                       bool, const tc::RaggedRange*, cudaStream_t);
TCU_RAGGED_COMMON(std::int32_t)
TCU_RAGGED_COMMON(std::int64_t)
#undef TCU_RAGGED_COMMON

}  // namespace tcu::detail::device
