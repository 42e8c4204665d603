// Lesson 5 — ragged segments: CUB's begin/end offsets, segments of any lengths in one launch.
// The flat array is walked in aligned block tiles whatever the segments; the offsets only mark
// heads (segment starts), the elements outside every segment (`off`: zero, never written) and,
// for sums, each segment's last element. One chunk of the covered range per block:
//   1. range:  one pass over the offsets finds the covered range [lo, hi) and checks that the
//              segments are ordered (each starts at or after the previous one's end)
//   2. tails:  (scans) each chunk sums the segment that runs on past its end: Alg. 4 over its part
//   3. walk:   each block walks its chunk's block tiles with a carry; per tile the marks, the
//              row scans A·U (or lane scans where a segment starts inside a row), a flagged
//              shuffle scan, the warps' carries; the carry into the chunk is the tails of the
//              chunks before, back to the one holding the segment's start (fixed order)
//   4. finish: (sums) a segment that spans chunks: its parts, added in chunk order
// Unordered or overlapping segments take a warp-per-segment fallback (correct, slower).
#include "05_block_grid/kernels/ragged_launchers.hpp"
#include "common/tensor_core/block_reduce.cuh"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/ragged.cuh"

namespace tcu::detail::device {
namespace {

using tc::kRaggedTileElems;
using tc::kRaggedWarpTiles;
using tc::kTileElems;

enum class RaggedOut { sums, inclusive, exclusive };
enum ChunkState : int { kNone = 0, kEnds = 1, kThrough = 2, kHead = 3 };
// Scans: the segment running on past a chunk's end — none, one that starts in the chunk (value:
// its sum from the start, a head), or one that covers the whole chunk (value: the chunk's sum).
struct ChunkTail {
  float value;
  int state;
};
// Sums: the chunk's part of the segment open at its start (kEnds there, or kThrough), and the
// sum from the start of the segment that runs on past its end (tail_seg, -1: none).
struct ChunkSums {
  float head_part, tail;
  long long tail_seg;
  int head_state;
};

// fp32 sum with a compensation term (Kahan): the error does not grow with the count.
struct Compensated {
  float s = 0.0f, c = 0.0f;
  __device__ void add(float x) {
    const float y = x - c, t = s + y;
    c = (t - s) - y;
    s = t;
  }
};
// Σ value(i), i in [from, to), by one warp: lane l takes from + l, from + l + 32, … (compensated),
// then a fixed shuffle tree: the same bits every run.
template <class Value>
__device__ float warp_sum_chunks(Value&& value, long long from, long long to, int lane) {
  Compensated k;
  for (long long i = from + lane; i < to; i += tc::kWarpSize) k.add(value(i));
  float s = k.s;
#pragma unroll
  for (int o = tc::kWarpSize / 2; o > 0; o /= 2) s += __shfl_xor_sync(tc::kFullMask, s, o);
  return __shfl_sync(tc::kFullMask, s, 0);
}

// ---- 1. range ----------------------------------------------------------------------------------
template <class T>
__global__ void ragged_range_kernel(const T* __restrict__ begin, const T* __restrict__ end, std::int64_t ns,
                                    tc::RaggedRange* range, float* zero_empty) {
  unsigned long long lo = ~0ull, hi = 0;
  unsigned disordered = 0;
  for (std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; s < ns;
       s += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t b = begin[s], e = end[s];
    if (e > b) {
      if (b < 0) disordered = 1;
      lo = min(lo, static_cast<unsigned long long>(b));
      hi = max(hi, static_cast<unsigned long long>(e));
    } else if (zero_empty) {
      zero_empty[s] = 0.0f;  // an empty segment sums to 0
    }
    if (s + 1 < ns && (e > b ? e : b) > static_cast<std::int64_t>(begin[s + 1])) disordered = 1;
  }
#pragma unroll
  for (int o = tc::kWarpSize / 2; o > 0; o /= 2) {
    lo = min(lo, __shfl_xor_sync(tc::kFullMask, lo, o));
    hi = max(hi, __shfl_xor_sync(tc::kFullMask, hi, o));
    disordered |= __shfl_xor_sync(tc::kFullMask, disordered, o);
  }
  if (tc::lane_id() == 0) {
    if (hi > 0) atomicMin(&range->lo, lo);
    if (hi > 0) atomicMax(&range->hi, hi);
    if (disordered) atomicOr(&range->disordered, 1u);
  }
}
__global__ void fixed_range_kernel(tc::RaggedRange* range, std::int64_t n) {
  *range = tc::RaggedRange{0, static_cast<unsigned long long>(n), 0};
}

// ---- 2. tails (scans) ----------------------------------------------------------------------------
template <class Off>
__global__ void __launch_bounds__(tc::kBlockThreads)
    ragged_tails_kernel(const __half* __restrict__ in, std::int64_t ns, Off off, const tc::RaggedRange* range,
                        int chunks, ChunkTail* tails) {
  tc::BlockSmem& sm = tc::block_smem();
  __shared__ long long from;
  __shared__ int state;
  const tc::RaggedRange r = *range;
  if (r.disordered) return;
  const tc::Chunk c = tc::chunk_of(r, chunks, blockIdx.x);
  if (threadIdx.x == 0) {  // the segment that runs on past the chunk's end, if any
    state = kNone;
    from = c.last;
    const std::int64_t s = c.first < c.last ? tc::first_ending_after(off, ns, c.last) : ns;
    if (s < ns && off.begin(s) < c.last) {
      const std::int64_t b = off.begin(s);
      state = b >= c.first ? kHead : kThrough;
      from = b >= c.first ? b : c.first;
    }
  }
  tc::write_block_constants(sm);
  __syncthreads();
  if (state == kNone) {
    if (threadIdx.x == 0) tails[blockIdx.x] = ChunkTail{0.0f, kNone};
    return;
  }
  const float sum = tc::block_reduce_range(sm, in + from, c.last - from);  // Alg. 4
  if (threadIdx.x == 0) tails[blockIdx.x] = ChunkTail{sum, state};
}

// The carry into chunk b: the tails of chunks b−1, b−2, … back to the newest that is not kThrough.
__device__ float carry_into_chunk(const ChunkTail* tails, int b, int lane) {
  long long from = 0;
  for (long long end = b; end > 0; end -= tc::kWarpSize) {
    const long long i = end - 1 - lane;
    const unsigned stop = __ballot_sync(tc::kFullMask, i >= 0 && tails[i].state != kThrough);
    if (stop) {
      from = end - __ffs(stop);
      break;
    }
  }
  return warp_sum_chunks([&](long long i) { return tails[i].value; }, from, b, lane);
}

// ---- 3. walk -------------------------------------------------------------------------------------
template <bool kSums>
struct alignas(128) WalkSmem {
  __half stage[tc::kBlockWarps][kRaggedWarpTiles][kTileElems];  // the staged tiles (WMMA operands)
  float acc[tc::kBlockWarps][kTileElems];                        // a warp's R = A·U, then its results
  __half u[kTileElems];
  tc::RaggedMarks marks;
  unsigned rel[kSums ? kRaggedTileElems : 1];  // sums: index − cursor of the segment ending here
  float warp_total[tc::kBlockWarps], warp_carry[tc::kBlockWarps];
  int warp_head[tc::kBlockWarps];
  double block_carry;  // a chunk carries across thousands of block tiles: no fp32 chain of roundings
  float head_part;
  long long s_open, s_close, cursor;
};

// One tile's results to out[first …]: through the warp's scratch as whole 512-byte rows of
// stores when all 256 are written (and out is aligned), else each lane its own elements.
template <RaggedOut kOut, class OutT>
__device__ void write_tile(OutT* out, std::int64_t first, const float (&v)[8], unsigned heads8, unsigned off8,
                           float before, float* scratch, int lane) {
  const float prev0 = __shfl_up_sync(tc::kFullMask, v[7], 1);
  const float prev = lane == 0 ? before : prev0;
  alignas(16) OutT o[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const float x = kOut == RaggedOut::inclusive ? v[j] : ((heads8 >> j) & 1u) ? 0.0f : j > 0 ? v[j - 1] : prev;
    o[j] = tc::from_float<OutT>(x);
  }
  constexpr int kVecs = static_cast<int>(8 * sizeof(OutT) / 16);  // 16-byte vectors per lane
  if (__all_sync(tc::kFullMask, off8 == 0) && tc::aligned16(out + first)) {
    uint4* s = reinterpret_cast<uint4*>(scratch);
#pragma unroll
    for (int h = 0; h < kVecs; ++h) s[lane * kVecs + h] = reinterpret_cast<const uint4*>(o)[h];
    __syncwarp();
#pragma unroll
    for (int h = 0; h < kVecs; ++h)
      __stcs(reinterpret_cast<uint4*>(out + first) + h * tc::kWarpSize + lane, s[h * tc::kWarpSize + lane]);
    __syncwarp();
  } else {
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (!((off8 >> j) & 1u)) out[first + lane * tc::kPieceElems + j] = o[j];
  }
}

template <RaggedOut kOut, class OutT, class Off>
__global__ void __launch_bounds__(tc::kBlockThreads, 3)
    ragged_walk_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t ns, Off off,
                       const tc::RaggedRange* range, int chunks, const ChunkTail* tails, ChunkSums* sums) {
  constexpr bool kSums = kOut == RaggedOut::sums;
  __shared__ WalkSmem<kSums> sm;
  const tc::RaggedRange r = *range;
  if (r.disordered) return;
  const tc::Chunk c = tc::chunk_of(r, chunks, blockIdx.x);
  if (c.first >= c.last) {
    if (kSums && threadIdx.x == 0) sums[blockIdx.x] = ChunkSums{0.0f, 0.0f, -1, kNone};
    return;
  }
  const int lane = tc::lane_id(), warp = tc::warp_in_block();
  if (threadIdx.x == 0) {  // where the chunk lies among the segments (binary searches)
    const std::int64_t first = tc::first_ending_after(off, ns, c.first);
    sm.s_open = first < ns && off.begin(first) < c.first ? first : -1;  // began in an earlier chunk
    sm.cursor = first > 0 ? first - 1 : 0;
    const std::int64_t after = tc::first_ending_after(off, ns, c.last);
    sm.s_close = after < ns && off.begin(after) < c.last ? after : -1;  // runs on into the next chunk
    sm.head_part = 0.0f;
    sm.block_carry = 0.0f;
  }
  tc::write_constant_tile(sm.u, tc::ConstantMatrix::U, threadIdx.x, blockDim.x);
  __syncthreads();
  if constexpr (!kSums) {  // the carry into the chunk: the tails of the chunks before (fixed order)
    if (warp == 0 && sm.s_open >= 0) {
      const float carry = carry_into_chunk(tails, blockIdx.x, lane);
      if (lane == 0) sm.block_carry = carry;
    }
  }
  std::int64_t cur = sm.cursor;
  tc::FragBRow fu;
  tc::wmma::load_matrix_sync(fu, sm.u, tc::kTile);
  const bool aligned = tc::aligned16(in);
  const int warp_first = warp * kRaggedWarpTiles * kTileElems + lane * tc::kPieceElems;  // in the block tile
  tc::Piece next[kRaggedWarpTiles];
  auto load = [&](std::int64_t t0) {
#pragma unroll
    for (int k = 0; k < kRaggedWarpTiles; ++k)
      next[k] = tc::load_piece_within(in, t0 + warp_first + k * kTileElems, c.first, c.last, aligned);
  };
  std::int64_t t0 = c.first / kRaggedTileElems * kRaggedTileElems;
  load(t0);
  for (; t0 < c.last; t0 += kRaggedTileElems) {
    const std::int64_t va = t0 > c.first ? t0 : c.first;
    const std::int64_t vb = t0 + kRaggedTileElems < c.last ? t0 + kRaggedTileElems : c.last;
    // 1. the marks: heads, off, last elements (from the offsets that fall in the block tile)
    const std::int64_t following = tc::mark_block_tile<kSums>(sm.marks, sm.rel, off, ns, cur, t0, va, vb);
    // 2. stage the tiles with `off` elements zeroed; the next block tile's loads go out
    float x[kRaggedWarpTiles][8];
    unsigned heads[kRaggedWarpTiles], offs[kRaggedWarpTiles];
#pragma unroll
    for (int k = 0; k < kRaggedWarpTiles; ++k) {
      heads[k] = tc::bits8(sm.marks.head, warp_first + k * kTileElems);
      offs[k] = tc::bits8(sm.marks.off, warp_first + k * kTileElems);
      tc::mask_piece(next[k], offs[k], x[k]);
      tc::store_piece(sm.stage[warp][k], next[k], lane);
    }
    __syncwarp();
    if (t0 + kRaggedTileElems < c.last) load(t0 + kRaggedTileElems);
    // 3. every warp scans its tiles (flagged), the carry passing from tile to tile
    float v[kRaggedWarpTiles][8];
    unsigned seen[kRaggedWarpTiles];
    float wc = 0.0f;
    bool wh = false;
#pragma unroll
    for (int k = 0; k < kRaggedWarpTiles; ++k) {
      tc::scan_ragged_tile(sm.stage[warp][k], sm.acc[warp], fu, heads[k], x[k], wc, wh, v[k], seen[k], lane);
      wc = __shfl_sync(tc::kFullMask, v[k][7], tc::kWarpSize - 1);
      wh = __shfl_sync(tc::kFullMask, (seen[k] >> 7) & 1u, tc::kWarpSize - 1) != 0;
    }
    if (lane == 0) {
      sm.warp_total[warp] = wc;  // the sum after the warp's last head (all of it without one)
      sm.warp_head[warp] = wh;
    }
    __syncthreads();
    // 4. the warps' carries: the block carry, then the warp totals, restarting at heads (fixed order)
    if (threadIdx.x == 0) {
      double bc = sm.block_carry;
      for (int w = 0; w < tc::kBlockWarps; ++w) {
        sm.warp_carry[w] = static_cast<float>(bc);
        bc = sm.warp_head[w] ? static_cast<double>(sm.warp_total[w]) : bc + sm.warp_total[w];
      }
      sm.block_carry = bc;
    }
    __syncthreads();
    // 5. the carry added before the warp's first head; results out
    const float carry = sm.warp_carry[warp];
    float before = carry;
#pragma unroll
    for (int k = 0; k < kRaggedWarpTiles; ++k) {
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (!((seen[k] >> j) & 1u)) v[k][j] += carry;
      if constexpr (kSums) {
        const int e0 = warp_first + k * kTileElems;
        const unsigned last8 = tc::bits8(sm.marks.last, e0);
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          if (!((last8 >> j) & 1u)) continue;
          const std::int64_t s = cur + sm.rel[e0 + j];
          if (s == sm.s_open) sm.head_part = v[k][j];  // finished by the finish pass
          else out[s] = v[k][j];
        }
      } else {
        write_tile<kOut>(out, t0 + warp * kRaggedWarpTiles * kTileElems + k * kTileElems, v[k], heads[k], offs[k],
                         before, sm.acc[warp], lane);
      }
      before = __shfl_sync(tc::kFullMask, v[k][7], tc::kWarpSize - 1);
    }
    cur = following - 1 > cur ? following - 1 : cur;
    __syncthreads();  // the marks and the shared tiles are free for the next block tile
  }
  if (kSums && threadIdx.x == 0) {  // the chunk's parts of the segments that span chunks
    ChunkSums rec;
    rec.head_state = sm.s_open < 0 ? kNone : sm.s_open == sm.s_close ? kThrough : kEnds;
    rec.head_part = rec.head_state == kThrough ? static_cast<float>(sm.block_carry) : sm.head_part;
    rec.tail_seg = sm.s_close >= 0 && sm.s_close != sm.s_open ? sm.s_close : -1;
    rec.tail = static_cast<float>(sm.block_carry);
    sums[blockIdx.x] = rec;
  }
}

// ---- 4. finish (sums) ----------------------------------------------------------------------------
// A warp per chunk whose tail segment runs on: its tail plus the next chunks' head parts, up to the
// chunk where it ends, in chunk order.
__global__ void ragged_finish_kernel(float* out, const tc::RaggedRange* range, int chunks, const ChunkSums* sums) {
  if (range->disordered) return;
  const long long b = static_cast<long long>(blockIdx.x) * tc::kBlockWarps + tc::warp_in_block();
  const int lane = tc::lane_id();
  if (b >= chunks || sums[b].tail_seg < 0) return;
  long long to = chunks;
  for (long long first = b + 1; first < chunks; first += tc::kWarpSize) {
    const long long i = first + lane;
    const unsigned ends = __ballot_sync(tc::kFullMask, i < chunks && sums[i].head_state == kEnds);
    if (ends) {
      to = first + __ffs(ends);
      break;
    }
  }
  const float s = warp_sum_chunks([&](long long i) { return i == b ? sums[b].tail : sums[i].head_part; }, b, to, lane);
  if (lane == 0) out[sums[b].tail_seg] = s;
}

// ---- unordered or overlapping segments: a warp per segment ---------------------------------------
template <class T>
__global__ void ragged_reduce_fallback_kernel(const __half* __restrict__ in, float* __restrict__ out, std::int64_t ns,
                                              tc::OffsetArrays<T> off, const tc::RaggedRange* range) {
  if (!range->disordered) return;
  const int lane = tc::lane_id();
  const std::int64_t warps = std::int64_t(gridDim.x) * tc::kBlockWarps;
  for (std::int64_t s = blockIdx.x * std::int64_t(tc::kBlockWarps) + tc::warp_in_block(); s < ns; s += warps) {
    const std::int64_t b = off.begin(s);
    const float sum = warp_sum_chunks([&](long long i) { return __half2float(in[i]); }, b, off.end(s), lane);
    if (lane == 0) out[s] = sum;
  }
}
template <RaggedOut kOut, class OutT, class T>
__global__ void ragged_scan_fallback_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t ns,
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
      if (i < e) out[i] = tc::from_float<OutT>(kOut == RaggedOut::inclusive ? v : lane == 0 ? carry : prev0);
      carry = __shfl_sync(tc::kFullMask, v, tc::kWarpSize - 1);
    }
  }
}

// ---- launchers -----------------------------------------------------------------------------------
constexpr std::size_t kRangeBytes = 64;  // the RaggedRange, then the chunk records

template <class Kernel>
int chunks_for(Kernel* walk) {  // one chunk per block of a full wave of the walk
  return tc::resident_grid_size(reinterpret_cast<const void*>(walk), tc::kBlockThreads, std::int64_t(1) << 30, 0);
}
#define TCU_TRY(call)                                       \
  do {                                                      \
    if (cudaError_t e_ = (call); e_ != cudaSuccess) return e_; \
  } while (0)

// The range: from the offsets (ordered or not), or known (fixed sizes).
template <class T>
cudaError_t find_range(tc::RaggedRange* range, const T* begin, const T* end, std::int64_t ns, float* zero_empty,
                       cudaStream_t stream) {
  TCU_TRY(cudaMemsetAsync(range, 0, sizeof(tc::RaggedRange), stream));
  TCU_TRY(cudaMemsetAsync(&range->lo, 0xff, sizeof(range->lo), stream));
  ragged_range_kernel<T><<<tc::grid_for(ceil_div(ns, tc::kBlockThreads), 8), tc::kBlockThreads, 0, stream>>>(
      begin, end, ns, range, zero_empty);
  return cudaGetLastError();
}
cudaError_t fixed_range(tc::RaggedRange* range, std::int64_t n, cudaStream_t stream) {
  fixed_range_kernel<<<1, 1, 0, stream>>>(range, n);
  return cudaGetLastError();
}

// Sums: range, walk, finish (then, for offset arrays, the fallback, which returns at once when
// the segments are ordered).
template <class Off, class Range, class Fallback>
cudaError_t ragged_sums(const __half* in, float* out, std::int64_t ns, Off off, Range&& find, Fallback&& fallback,
                        cudaStream_t stream) {
  auto* walk = ragged_walk_kernel<RaggedOut::sums, float, Off>;
  const int chunks = chunks_for(walk);
  tc::TempBuffer<unsigned char> temp;
  TCU_TRY(temp.allocate(static_cast<std::int64_t>(kRangeBytes + chunks * sizeof(ChunkSums)), stream));
  auto* range = reinterpret_cast<tc::RaggedRange*>(temp.get());
  auto* sums = reinterpret_cast<ChunkSums*>(temp.get() + kRangeBytes);
  TCU_TRY(find(range));
  walk<<<chunks, tc::kBlockThreads, 0, stream>>>(in, out, ns, off, range, chunks, nullptr, sums);
  TCU_TRY(cudaGetLastError());
  ragged_finish_kernel<<<static_cast<unsigned>(ceil_div(chunks, tc::kBlockWarps)), tc::kBlockThreads, 0, stream>>>(
      out, range, chunks, sums);
  TCU_TRY(cudaGetLastError());
  return fallback(range);
}

// Scans: range, tails, walk (then the fallback).
template <RaggedOut kOut, class OutT, class Off, class Range, class Fallback>
cudaError_t ragged_scan(const __half* in, OutT* out, std::int64_t ns, Off off, Range&& find, Fallback&& fallback,
                        cudaStream_t stream) {
  auto* walk = ragged_walk_kernel<kOut, OutT, Off>;
  auto* tails_kernel = ragged_tails_kernel<Off>;
  TCU_TRY(tc::allow_block_smem(tails_kernel));
  const int chunks = chunks_for(walk);
  tc::TempBuffer<unsigned char> temp;
  TCU_TRY(temp.allocate(static_cast<std::int64_t>(kRangeBytes + chunks * sizeof(ChunkTail)), stream));
  auto* range = reinterpret_cast<tc::RaggedRange*>(temp.get());
  auto* tails = reinterpret_cast<ChunkTail*>(temp.get() + kRangeBytes);
  TCU_TRY(find(range));
  tails_kernel<<<chunks, tc::kBlockThreads, tc::kBlockSmemBytes, stream>>>(in, ns, off, range, chunks, tails);
  TCU_TRY(cudaGetLastError());
  walk<<<chunks, tc::kBlockThreads, 0, stream>>>(in, out, ns, off, range, chunks, tails, nullptr);
  TCU_TRY(cudaGetLastError());
  return fallback(range);
}

int fallback_grid(std::int64_t ns) { return tc::grid_for(ceil_div(ns, tc::kBlockWarps), 16); }

template <RaggedOut kOut, class OutT, class T>
cudaError_t scan_offsets(const __half* in, OutT* out, std::int64_t ns, const T* begin, const T* end,
                         cudaStream_t stream) {
  const tc::OffsetArrays<T> off{begin, end};
  return ragged_scan<kOut, OutT>(
      in, out, ns, off, [&](tc::RaggedRange* r) { return find_range(r, begin, end, ns, nullptr, stream); },
      [&](const tc::RaggedRange* r) {
        ragged_scan_fallback_kernel<kOut, OutT, T><<<fallback_grid(ns), tc::kBlockThreads, 0, stream>>>(in, out, ns,
                                                                                                      off, r);
        return cudaGetLastError();
      },
      stream);
}
template <RaggedOut kOut, class OutT>
cudaError_t scan_fixed(const __half* in, OutT* out, std::int64_t ns, std::int64_t size, cudaStream_t stream) {
  return ragged_scan<kOut, OutT>(
      in, out, ns, tc::FixedOffsets{size}, [&](tc::RaggedRange* r) { return fixed_range(r, ns * size, stream); },
      [](const tc::RaggedRange*) { return cudaSuccess; }, stream);
}

}  // namespace

template <class OffsetT>
cudaError_t launch_ragged_reduce(const __half* in, float* out, std::int64_t ns, const OffsetT* begin,
                                 const OffsetT* end, cudaStream_t stream) {
  const tc::OffsetArrays<OffsetT> off{begin, end};
  return ragged_sums(
      in, out, ns, off, [&](tc::RaggedRange* r) { return find_range(r, begin, end, ns, out, stream); },
      [&](const tc::RaggedRange* r) {
        ragged_reduce_fallback_kernel<OffsetT><<<fallback_grid(ns), tc::kBlockThreads, 0, stream>>>(in, out, ns, off, r);
        return cudaGetLastError();
      },
      stream);
}
template <class OutT, class OffsetT>
cudaError_t launch_ragged_scan(const __half* in, OutT* out, std::int64_t ns, const OffsetT* begin, const OffsetT* end,
                               bool inclusive, cudaStream_t stream) {
  return inclusive ? scan_offsets<RaggedOut::inclusive>(in, out, ns, begin, end, stream)
                   : scan_offsets<RaggedOut::exclusive>(in, out, ns, begin, end, stream);
}
cudaError_t launch_ragged_reduce_fixed(const __half* in, float* out, std::int64_t ns, std::int64_t size,
                                       cudaStream_t stream) {
  return ragged_sums(
      in, out, ns, tc::FixedOffsets{size}, [&](tc::RaggedRange* r) { return fixed_range(r, ns * size, stream); },
      [](const tc::RaggedRange*) { return cudaSuccess; }, stream);
}
template <class OutT>
cudaError_t launch_ragged_scan_fixed(const __half* in, OutT* out, std::int64_t ns, std::int64_t size, bool inclusive,
                                     cudaStream_t stream) {
  return inclusive ? scan_fixed<RaggedOut::inclusive>(in, out, ns, size, stream)
                   : scan_fixed<RaggedOut::exclusive>(in, out, ns, size, stream);
}

#define TCU_RAGGED(OffsetT)                                                                                          \
  template cudaError_t launch_ragged_reduce<OffsetT>(const __half*, float*, std::int64_t, const OffsetT*,            \
                                                     const OffsetT*, cudaStream_t);                                  \
  template cudaError_t launch_ragged_scan<float, OffsetT>(const __half*, float*, std::int64_t, const OffsetT*,       \
                                                          const OffsetT*, bool, cudaStream_t);                       \
  template cudaError_t launch_ragged_scan<__half, OffsetT>(const __half*, __half*, std::int64_t, const OffsetT*,     \
                                                           const OffsetT*, bool, cudaStream_t);
TCU_RAGGED(std::int32_t)
TCU_RAGGED(std::int64_t)
#undef TCU_RAGGED
template cudaError_t launch_ragged_scan_fixed<float>(const __half*, float*, std::int64_t, std::int64_t, bool,
                                                     cudaStream_t);
template cudaError_t launch_ragged_scan_fixed<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool,
                                                      cudaStream_t);

}  // namespace tcu::detail::device
