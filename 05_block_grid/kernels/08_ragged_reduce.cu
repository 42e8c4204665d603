// Lesson 5 — ragged segments, the sums: CUB's begin/end offsets, segments of any lengths in one
// launch. Not one warp or block per segment (idle on short ones, serial on a huge one): the flat
// array is cut into one chunk per warp, and each warp walks its chunk tile by tile (1024
// consecutive elements, 32 per lane) whatever the segments:
//   1. range:  the covered range [lo, hi), from the first and the last non-empty segment (one
//              block reads the offsets at the two ends, ragged_common.cu). The warps' chunks split
//              it by work: elements plus a cost per segment start
//   2. walk:   a tile without an event (a segment's first or last element) only adds: each lane
//              keeps its own part of the running sum. In a tile with events, lane s reads the
//              offsets of the tile's segment s and marks its head in a bitmap; each lane sums
//              its 32 elements, restarting at heads, into shared memory; a segmented shuffle
//              scan gives each lane the sum before it; lane s then writes segment s's sum
//   3. join:   the parts of segments that cross warp chunks, in warp order inside a block, then
//              across blocks (finish kernel), in chunk order: the same bits every run
// The walk reads each segment's offsets once, and checks the order as it reads them: each segment
// starts at or after the previous one's end, and the warps' runs of segments abut (the join).
// One add per element is all a sum needs, and the CUDA cores do it at the read stream.
// Unordered or overlapping segments take the warp-per-segment fallback (correct, slower).
#include "05_block_grid/kernels/ragged_launchers.hpp"
#include "common/tensor_core/dependent_launch.cuh"
#include "common/tensor_core/lane_scan.cuh"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/ragged.cuh"

namespace tcu::detail::device {
namespace {

// A warp's tile: 1024 elements, 32 consecutive ones per lane (four 16-byte loads). A tile with
// events costs the warp a fixed amount of work (offsets, ballots, a shuffle scan) whatever its
// size, so the tile is as large as the registers allow; the next tile loads while one is added.
constexpr int kLanePieces = 4;                             // a lane's consecutive 8-element pieces
constexpr int kLaneElems = kLanePieces * tc::kPieceElems;  // 32
constexpr int kWalkTile = tc::kWarpSize * kLaneElems;      // 1024
constexpr std::int64_t kNoEvent = INT64_MAX;

enum HeadState : int { kNone = 0, kEnds = 1, kThrough = 2 };
// A warp's or a block's parts of the segments that cross its chunk's edges: `head`, its part of
// the segment open at its start (up to that segment's end: kEnds; all of the chunk: kThrough),
// and `tail`, the sum from the start of the segment `tail_seg` that runs on past its end.
struct Parts {
  double head, tail;
  long long tail_seg;  // -1: none
  int head_state;
  long long first_seg, end_seg;  // the segments finished: [first_seg, end_seg)
};

// Each lane's runs are a row of shared memory padded by one float4, so that the 8 lanes of one
// 16-byte store hit all 32 banks, and a lane's 8 stores share one address (immediate offsets).
constexpr int kLaneGroups = kLaneElems / 4;
constexpr int kRunRow = kLaneElems + 4;
struct WarpTile {                                // one tile with events, of one warp
  alignas(16) float run[tc::kWarpSize * kRunRow];  // lane L's element j: its sum since its last head
  float before[tc::kWarpSize];       // lane L: the lanes' sum from the last head before lane L
  unsigned head[kWalkTile / 32];     // bit i: a segment starts at element i
};
struct alignas(16) WalkSmem {
  WarpTile tile[tc::kBlockWarps];
  Parts parts[tc::kBlockWarps];
};

// N searches of warp_search at once, in the same rounds: a[i] becomes the first index in
// [a[i], z[i]) with pred(i, index), z[i] if none. Every round evaluates pred N times without a
// branch between (at `safe`, a valid index, where a search is done), so that the N loads go out
// together: a branch around each would make the warp wait for them one by one.
template <int N, class Pred>
__device__ void warp_search_n(std::int64_t (&a)[N], std::int64_t (&z)[N], std::int64_t safe, Pred&& pred, int lane) {
  for (;;) {
    bool hit[N], open = false;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const std::int64_t step = (z[i] - a[i] + tc::kWarpSize - 1) / tc::kWarpSize, s = a[i] + step * (lane + 1) - 1;
      const bool inside = a[i] < z[i] && s < z[i];
      hit[i] = pred(i, inside ? s : safe) | !inside;
      open |= a[i] < z[i];
    }
    if (!open) return;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const std::int64_t step = (z[i] - a[i] + tc::kWarpSize - 1) / tc::kWarpSize;
      const unsigned t = __ballot_sync(tc::kFullMask, hit[i]);
      if (a[i] >= z[i]) continue;
      if (t == 0) { a[i] = z[i]; continue; }  // no hit: this search is done
      const int k = __ffs(t) - 1;
      const std::int64_t pk = a[i] + step * (k + 1) - 1;
      a[i] += step * k;
      z[i] = pk < z[i] ? pk : z[i];
    }
  }
}

// The chunks split the covered range by work, not by elements: an element costs 1 and a segment's
// start kSegmentCost more (a tile of short segments takes a warp several plain tiles' time).
// Chunk b starts where the cost from lo reaches b/chunks of the total, aligned down to a tile.
// 24 balances one segment of n/2 beside segments of 1-8 elements (H100, n = 2^28: 16 → 73 %,
// 24 → 77 %, 32 → 70 %, 64 → 51 % of the read stream); evenly mixed lengths do not depend on it.
constexpr std::int64_t kSegmentCost = 24;
struct WarpChunk {
  tc::ArrayChunk c;
  std::int64_t first_seg;  // where a walk from c.first stands among the segments (first_segment_from)
};
constexpr std::int64_t kPrefetchMean = 256;
template <class Off>
__device__ __forceinline__ WarpChunk weighted_chunk(const __half* in, const tc::RaggedRange& r, const Off& off,
                                                    std::int64_t ns, std::int64_t chunks, std::int64_t b, int lane) {
  if (r.hi <= r.lo) return WarpChunk{{0, 0}, tc::first_segment_from(off, ns, 0, lane)};
  const std::int64_t lo = static_cast<std::int64_t>(r.lo), hi = static_cast<std::int64_t>(r.hi);
  const double total = double(hi - lo) + double(kSegmentCost) * double(ns);
  // both edges' searches at once: j, the first segment whose start costs t or more
  std::int64_t t[2], j[2], z[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const std::int64_t k = b + i;
    const bool inside = k > 0 && k < chunks;
    t[i] = inside ? static_cast<std::int64_t>(total * double(k) / double(chunks)) : 0;
    j[i] = 0;
    z[i] = inside ? ns : 0;
  }
  warp_search_n(j, z, 0, [&](int i, std::int64_t s) { return off.begin(s) - lo + kSegmentCost * s >= t[i]; },
                    lane);
  std::int64_t edge[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const std::int64_t k = b + i;
    if (k <= 0 || k >= chunks) {
      edge[i] = k <= 0 ? lo : hi;
    } else {  // the position with cost t lies after j − 1's start
      std::int64_t p = lo + t[i] - kSegmentCost * j[i];
      if (j[i] > 0) p = max(p, static_cast<std::int64_t>(off.begin(j[i] - 1)));
      edge[i] = min(max(p / kWalkTile * kWalkTile, lo), hi);
    }
  }
  // Long segments on average: the chunk's first 8 KB into L2 while the warp looks for its first
  // segment and reads the offsets (at shorter means the prefetch costs more than it saves: the
  // offsets' loads should go out first; chapter 05's results page has the measurements)
  if (hi - lo >= kPrefetchMean * ns) {
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      const std::int64_t at = edge[0] + (lane * 2 + q) * 64;  // 64 elements: a 128-byte line
      if (at < edge[1]) asm volatile("prefetch.global.L2 [%0];" ::"l"(in + at));
    }
  }
  // the first segment from the start: for ordered segments at or before j (it starts at or after
  // the start; r.first for the first chunk), so a window below j first, two rounds instead of a
  // search of all; below the window only when the window's first one already qualifies
  const std::int64_t p = edge[0], bound = b <= 0 ? r.first : j[0];
  auto from = [&](std::int64_t s) { return off.end(s) > p || off.begin(s) >= p; };
  const std::int64_t lower = max(bound - std::int64_t(tc::kWarpSize) * tc::kWarpSize, std::int64_t(0));
  std::int64_t seg = tc::warp_search(lower, bound, from, lane);
  if (seg == lower && lower > 0) seg = tc::warp_search(0, lower, from, lane);
  return WarpChunk{{edge[0], edge[1]}, seg};
}

// A warp's walk: where it is among the segments, and its running sum since the last head.
template <class Off>
struct Walk {
  std::int64_t cur;    // the first segment not finished: the open one, or the next to start
  std::int64_t b, e;   // its offsets
  std::int64_t event;  // its next event: its head, or its last element when it is open
  std::int64_t open;   // the segment open at the chunk's start (-1: none)
  double carry;        // the running sum before this lane's parts (the same in every lane)
  double acc;          // this lane's parts since the carry
  bool spread;         // acc may be non-zero in several lanes
  bool disordered;     // this lane read segments out of order: the fallback takes the call
  typename Off::Raw next;  // lane s: segment cur + s's offsets, read ahead of the tile that needs them
  bool next_valid;         // cur + s < ns
};
// The offsets of a tile of short segments come in rounds of 32, each waiting for the last: lane s
// reads segment cur + s's ahead, and lane r < `rounds` brings round r + 1's into L1 (rounds: as
// many as the last tile with events took, plus one). The read-ahead stays undecoded until the
// next tile with events: decoded at once, it made the warp wait for its loads in every tile with
// events (the largest stall in a profile of fixed_100).
template <class Off>
__device__ __forceinline__ void read_ahead(Walk<Off>& w, const Off& off, std::int64_t ns, int rounds, int lane) {
  w.next_valid = w.cur + lane < ns;
  w.next = typename Off::Raw{};
  if (w.next_valid) w.next = off.load(w.cur + lane);  // not decoded before the next tile: no wait here
  const std::int64_t p = w.cur + tc::kWarpSize * (lane + 1);
  if (lane < rounds && p < ns) off.prefetch(p);
}

__device__ __forceinline__ std::int64_t next_event(std::int64_t b, std::int64_t e, std::int64_t t) {
  return b < t ? e - 1 : b;  // open at t: its last element; else its head (kNoEvent past the end)
}

// One tile with events: elements [t0, t1) (t1 = t0 + kWalkTile, or the chunk's end), lane L's x =
// its kLaneElems consecutive elements. The lanes play two parts: lane s reads segment cur + s's
// offsets (marks its head, later writes its sum), lane L sums its elements with restarts at heads.
template <class Off>
__device__ void tile_with_events(WarpTile& wt, Parts& parts, const Off& off, std::int64_t ns, std::int64_t t0,
                                 std::int64_t t1, const tc::Piece (&x)[kLanePieces], float* out, Walk<Off>& w, int lane) {
  if (lane < kWalkTile / 32) wt.head[lane] = 0u;
  __syncwarp();
  // 1. heads: the segments from cur on that start before t1, 32 at a time; the walk stops at the
  //    first that does not end inside the tile (ordered segments: all later ones start after it).
  //    Lane s keeps its segment of the first round, relative to t0, for step 4.
  const std::int64_t first = w.cur;
  int head0 = 0, last0 = -1;  // last0 >= 0: non-empty, ends in the tile
  bool empty0 = false;
  int ended0 = tc::kWarpSize;  // segments of the first round that end in the tile
  std::int64_t prev_end = 0;   // the end of the segment before lane 0's (rounds after the first)
  int rounds = 1;
  for (bool round0 = true;; round0 = false, ++rounds) {
    const std::int64_t s = w.cur + lane;
    std::int64_t b = kNoEvent, e = kNoEvent;
    if (round0) {  // read ahead a tile before
      if (w.next_valid) off.decode(w.next, b, e);
    } else if (s < ns) {
      off.get(s, b, e);
    }
    // the order: each segment starts at or after the previous one's end; a non-empty one inside
    // the array and after this tile's start (ordered segments cannot end before it)
    const std::int64_t next_b = __shfl_down_sync(tc::kFullMask, b, 1);
    if ((lane < tc::kWarpSize - 1 && e > next_b) || (lane == 0 && !round0 && prev_end > b) ||
        (e > b && (b < 0 || e <= t0)))
      w.disordered = true;
    prev_end = __shfl_sync(tc::kFullMask, e, tc::kWarpSize - 1);
    const bool ends = b < t1 && e <= t1;
    if (round0) empty0 = e <= b;
    if (e > b && b < t1 && e > t0) {
      const std::int64_t rb = b - t0;  // >= -(chunk length): only the open segment starts before t0
      if (rb >= 0) atomicOr(&wt.head[static_cast<unsigned>(rb) / 32], 1u << (static_cast<unsigned>(rb) % 32));
      if (round0) head0 = rb < 0 ? -1 : static_cast<int>(rb), last0 = ends ? static_cast<int>(e - 1 - t0) : -1;
    }
    const unsigned done = __ballot_sync(tc::kFullMask, ends);
    if (done != tc::kFullMask) {
      const int k = __ffs(~done) - 1;
      if (round0) ended0 = k;
      w.cur += k;
      w.b = __shfl_sync(tc::kFullMask, b, k);
      w.e = __shfl_sync(tc::kFullMask, e, k);
      break;
    }
    w.cur += tc::kWarpSize;
  }
  w.event = next_event(w.b, w.e, t1);
  read_ahead(w, off, ns, min(rounds + 1, 16), lane);
  __syncwarp();
  constexpr unsigned kLaneMask = kLaneElems == 32 ? ~0u : (1u << kLaneElems) - 1u;
  const unsigned heads = (wt.head[lane * kLaneElems / 32] >> (lane * kLaneElems % 32)) & kLaneMask;
  // 2. the carry into the tile: the lanes' parts, in a fixed order
  if (w.spread) {
    double a = w.acc;
#pragma unroll
    for (int o = tc::kWarpSize / 2; o > 0; o /= 2) a += __shfl_down_sync(tc::kFullMask, a, o);
    w.carry += __shfl_sync(tc::kFullMask, a, 0);
    w.acc = 0.0;
    w.spread = false;
  }
  // 3. each lane's elements, restarting at heads; then the lanes joined by a segmented scan:
  //    lane L adds the lanes after the nearest lane at or before it that holds a head
  float run = 0.0f;
#pragma unroll
  for (int q = 0; q < kLaneGroups; ++q) {  // 4 elements at a time, their runs stored at once
    const __half2* h = reinterpret_cast<const __half2*>(&x[q / 2].v) + q % 2 * 2;
    const float2 lo = __half22float2(h[0]), hi = __half22float2(h[1]);
    const float v[4] = {lo.x, lo.y, hi.x, hi.y};
    float r[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      run = ((heads >> (4 * q + j)) & 1u) ? v[j] : run + v[j];
      r[j] = run;
    }
    *reinterpret_cast<float4*>(wt.run + lane * kRunRow + 4 * q) = make_float4(r[0], r[1], r[2], r[3]);
  }
  const unsigned lanes_with_heads = __ballot_sync(tc::kFullMask, heads != 0);
  const float inc = tc::flagged_lane_scan(lanes_with_heads, run, lane);
  const float up = __shfl_up_sync(tc::kFullMask, inc, 1);  // every lane: a full-mask shuffle
  wt.before[lane] = lane == 0 ? 0.0f : up;                  // lanes < L, since a head
  __syncwarp();
  // 4. every segment that ends here, by its offsets' lane: the run at its last element, plus the
  //    lanes before when its head is in an earlier lane, plus the carry when it is before the tile
  //    (only the first segment can be: the one open at t0)
  auto finish = [&](std::int64_t s, int head, int last) {
    const unsigned owner = static_cast<unsigned>(last) / kLaneElems, at = static_cast<unsigned>(last) % kLaneElems;
    float p = wt.run[owner * kRunRow + at];
    if (head < static_cast<int>(owner * kLaneElems)) p += wt.before[owner];
    if (head >= 0 && s != w.open) {
      out[s] = p;
    } else {
      const double v = head >= 0 ? double(p) : w.carry + double(p);
      if (s == w.open) {
        parts.head = v;  // the warp's part of a segment begun before its chunk: joined later
        parts.head_state = kEnds;
      } else {
        out[s] = static_cast<float>(v);
      }
    }
  };
  if (lane < ended0 && last0 >= 0) finish(first + lane, head0, last0);
  if (lane < ended0 && empty0) out[first + lane] = 0.0f;  // an empty segment sums to 0
  for (std::int64_t base = first + tc::kWarpSize; base < w.cur; base += tc::kWarpSize) {  // more than 32 ended
    const std::int64_t s = base + lane;
    if (s >= w.cur) break;
    std::int64_t b, e;
    off.get(s, b, e);
    if (e <= b) out[s] = 0.0f;
    else if (e > t0) finish(s, static_cast<int>(b - t0), static_cast<int>(e - 1 - t0));
  }
  // 5. what runs on into the next tile: the sum since the tile's last head
  const float total = __shfl_sync(tc::kFullMask, inc, tc::kWarpSize - 1);
  w.carry = lanes_with_heads ? double(total) : w.carry + double(total);
  __syncwarp();  // the tile's shared memory is free
}

template <class Off>
__global__ void __launch_bounds__(tc::kBlockThreads, 3)
    ragged_reduce_kernel(const __half* __restrict__ in, float* __restrict__ out, std::int64_t ns, Off off,
                         tc::RaggedRange* range, int chunks, Parts* block_parts) {
  __shared__ WalkSmem sm;
  tc::wait_prior_grid();  // the range
  tc::launch_dependents();
  const tc::RaggedRange r = *range;
  if (r.disordered) return;
  const int lane = tc::lane_id(), warp = tc::warp_in_block();
  const WarpChunk wc =
      weighted_chunk(in, r, off, ns, std::int64_t(chunks) * tc::kBlockWarps, blockIdx.x * tc::kBlockWarps + warp, lane);
  const tc::ArrayChunk c = wc.c;
  Parts& parts = sm.parts[warp];
  Walk<Off> w{};
  w.cur = wc.first_seg;  // where the chunk starts among the segments
  const std::int64_t start = w.cur;
  if (c.first < c.last) {
    read_ahead(w, off, ns, 1, lane);
    std::int64_t b0 = kNoEvent, e0 = kNoEvent;
    if (w.next_valid) off.decode(w.next, b0, e0);
    w.b = __shfl_sync(tc::kFullMask, b0, 0);
    w.e = __shfl_sync(tc::kFullMask, e0, 0);
    w.open = w.b < c.first ? w.cur : -1;
    w.event = next_event(w.b, w.e, c.first);
    if (lane == 0) parts = Parts{0.0, 0.0, -1, w.open >= 0 ? kThrough : kNone, start, start};
    __syncwarp();
    const bool aligned = tc::aligned16(in);
    auto load = [&](tc::Piece(&p)[kLanePieces], std::int64_t t) {
#pragma unroll
      for (int q = 0; q < kLanePieces; ++q)
        p[q] = tc::load_piece_within(in, t + (lane * kLanePieces + q) * tc::kPieceElems, c.first, c.last, aligned);
    };
    tc::Piece next[kLanePieces];
    const __half* lane_in = in + lane * kLaneElems;  // + a tile's start: this lane's 4 vectors
    const std::int64_t g = c.first / kWalkTile * kWalkTile;
    load(next, g);
#pragma unroll 1
    for (std::int64_t t0 = g; t0 < c.last; t0 += kWalkTile) {
      tc::Piece x[kLanePieces];  // this tile's elements, while the next tile loads
#pragma unroll
      for (int q = 0; q < kLanePieces; ++q) x[q] = next[q];
      const std::int64_t t1 = t0 + kWalkTile;
      if (aligned && t1 + kWalkTile <= c.last) {  // inside the chunk: whole loads
#pragma unroll
        for (int q = 0; q < kLanePieces; ++q) next[q].v = __ldcs(reinterpret_cast<const uint4*>(lane_in + t1) + q);
      } else if (t1 < c.last) {
        load(next, t1);
      }
      if (w.event >= t1) {  // no event: only add
#pragma unroll
        for (int q = 0; q < kLanePieces; ++q) w.acc += double(tc::piece_sum(x[q]));
        w.spread = true;
      } else {
        tile_with_events(sm.tile[warp], parts, off, ns, t0, min(t1, c.last), x, out, w, lane);
      }
    }
    // the chunk's sum since its last head; a segment that runs on past the chunk is its tail
    double a = w.acc;
#pragma unroll
    for (int o = tc::kWarpSize / 2; o > 0; o /= 2) a += __shfl_down_sync(tc::kFullMask, a, o);
    const double since_head = w.carry + __shfl_sync(tc::kFullMask, a, 0);
    if (lane == 0) {
      if (parts.head_state == kThrough) {
        parts.head = since_head;
      } else if (w.cur < ns && w.b < c.last && w.e > c.last) {
        parts.tail = since_head;
        parts.tail_seg = w.cur;
      }
      parts.end_seg = w.cur;
    }
    if (__any_sync(tc::kFullMask, w.disordered) && lane == 0) atomicOr(&range->disordered, 1u);
  } else if (lane == 0) {  // an empty chunk: a segment open at its place runs through it
    parts = Parts{0.0, 0.0, -1, kThrough, start, start};
  }
  __syncthreads();
  // 3. join inside the block, warp by warp: a segment that crosses warp chunks is written by the
  //    warp order here, or handed on in the block's parts
  //    (and the warps' runs of segments must abut, or the segments are out of order)
  if (threadIdx.x == 0) {
    constexpr long long kBlockHead = -2;  // the segment open at the block's start
    Parts blk{0.0, 0.0, -1, kNone, sm.parts[0].first_seg, sm.parts[tc::kBlockWarps - 1].end_seg};
    long long pending = sm.parts[0].head_state != kNone ? kBlockHead : -1;
    double sum = 0.0;
    bool abut = true;
    for (int v = 0; v < tc::kBlockWarps; ++v) {
      const Parts& p = sm.parts[v];
      abut &= v == 0 || p.first_seg == sm.parts[v - 1].end_seg;
      if (p.head_state == kThrough) {
        sum += p.head;
        continue;
      }
      if (p.head_state == kEnds) {
        sum += p.head;
        if (pending == kBlockHead) blk.head = sum, blk.head_state = kEnds;
        else if (pending >= 0) out[pending] = static_cast<float>(sum);
      }
      pending = p.tail_seg;
      sum = p.tail;
    }
    if (pending == kBlockHead) blk.head = sum, blk.head_state = kThrough;
    else if (pending >= 0) blk.tail = sum, blk.tail_seg = pending;
    block_parts[blockIdx.x] = blk;
    if (!abut) atomicOr(&range->disordered, 1u);
  }
}

// 3'. A warp per block: the order check ends (the blocks' runs of segments abut, from the first
// non-empty segment to past the last); then, if its tail segment runs on: its tail plus the next
// blocks' head parts, up to the block where it ends, in block order. (Out of order, this writes
// garbage, in bounds, and the fallback kernel, next, writes every segment.)
__global__ void ragged_finish_kernel(float* out, tc::RaggedRange* range, int chunks, const Parts* parts) {
  tc::wait_prior_grid();  // the walk's parts
  tc::launch_dependents();
  const tc::RaggedRange r = *range;
  if (r.disordered) return;
  const long long b = static_cast<long long>(blockIdx.x) * tc::kBlockWarps + tc::warp_in_block();
  const int lane = tc::lane_id();
  if (b >= chunks) return;
  if (r.last >= 0 && lane == 0 &&
      !((b > 0 || parts[0].first_seg <= r.first) &&
        (b + 1 < chunks ? parts[b].end_seg == parts[b + 1].first_seg : parts[b].end_seg > r.last)))
    atomicOr(&range->disordered, 1u);
  if (parts[b].tail_seg < 0) return;
  long long to = chunks;
  for (long long first = b + 1; first < chunks; first += tc::kWarpSize) {
    const long long i = first + lane;
    const unsigned ends = __ballot_sync(tc::kFullMask, i < chunks && parts[i].head_state == kEnds);
    if (ends) {
      to = first + __ffs(ends);
      break;
    }
  }
  double s = 0.0;
  for (long long i = b + lane; i < to; i += tc::kWarpSize) s += i == b ? parts[b].tail : parts[i].head;
#pragma unroll
  for (int o = tc::kWarpSize / 2; o > 0; o /= 2) s += __shfl_down_sync(tc::kFullMask, s, o);
  if (lane == 0) out[parts[b].tail_seg] = static_cast<float>(s);
}

// Range, walk, finish (then, for offset arrays, the fallback, which returns at once when the
// segments are ordered).
template <class Off, class Range, class Fallback>
cudaError_t ragged_sums(const __half* in, float* out, std::int64_t ns, Off off, Range&& find, Fallback&& fallback,
                        cudaStream_t stream) {
  auto* walk = ragged_reduce_kernel<Off>;
  const int chunks = tc::resident_grid_size(reinterpret_cast<const void*>(walk), tc::kBlockThreads, 1 << 30);
  tc::TempBuffer<unsigned char> temp;
  constexpr std::size_t kRangeBytes = 64;  // the RaggedRange, then the blocks' parts
  if (cudaError_t e = temp.allocate(static_cast<std::int64_t>(kRangeBytes + chunks * sizeof(Parts)), stream);
      e != cudaSuccess)
    return e;
  auto* range = reinterpret_cast<tc::RaggedRange*>(temp.get());
  auto* parts = reinterpret_cast<Parts*>(temp.get() + kRangeBytes);
  if (cudaError_t e = find(range); e != cudaSuccess) return e;
  // each kernel a dependent launch of the one before: placed while it ends (dependent_launch.cuh)
  if (cudaError_t e = tc::launch_dependent(walk, chunks, tc::kBlockThreads, stream, in, out, ns, off, range, chunks,
                                           parts);
      e != cudaSuccess)
    return e;
  const auto finish_blocks = static_cast<unsigned>(ceil_div(chunks, tc::kBlockWarps));
  if (cudaError_t e = tc::launch_dependent(ragged_finish_kernel, finish_blocks, tc::kBlockThreads, stream, out, range,
                                           chunks, parts);
      e != cudaSuccess)
    return e;
  return fallback(range);
}

}  // namespace

template <class OffsetT>
cudaError_t launch_ragged_reduce(const __half* in, float* out, std::int64_t ns, const OffsetT* begin,
                                 const OffsetT* end, cudaStream_t stream) {
  return ragged_sums(
      in, out, ns, tc::OffsetArrays<OffsetT>{begin, end},
      [&](tc::RaggedRange* r) { return find_ragged_ends(r, begin, end, ns, out, stream); },
      [&](const tc::RaggedRange* r) { return ragged_reduce_fallback(in, out, ns, begin, end, r, stream); }, stream);
}
cudaError_t launch_ragged_reduce_fixed(const __half* in, float* out, std::int64_t ns, std::int64_t size,
                                       cudaStream_t stream) {
  return ragged_sums(
      in, out, ns, tc::FixedOffsets{size}, [&](tc::RaggedRange* r) { return fixed_ragged_range(r, ns, size, stream); },
      [](const tc::RaggedRange*) { return cudaSuccess; }, stream);
}

template cudaError_t launch_ragged_reduce<std::int32_t>(const __half*, float*, std::int64_t, const std::int32_t*,
                                                        const std::int32_t*, cudaStream_t);
template cudaError_t launch_ragged_reduce<std::int64_t>(const __half*, float*, std::int64_t, const std::int64_t*,
                                                        const std::int64_t*, cudaStream_t);

}  // namespace tcu::detail::device
