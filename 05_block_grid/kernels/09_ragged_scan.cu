// Lesson 6 — ragged segments, the scans: CUB's begin/end offsets, the prefix sums of segments of any
// lengths in one launch. The flat array is walked in aligned block tiles whatever the segments; the
// offsets only mark heads (segment starts) and the elements outside every segment (`off`: zero,
// never written). One chunk of the covered range per block:
//   1. ends:  one block reads the offsets from the two ends: the covered range [lo, hi) (ragged_common.cu)
//   2. tails: each chunk sums the segment that runs on past its end (a block per chunk)
//   3. walk:  each block walks its chunk's block tiles with a carry: per tile the marks, lane
//             scans (8 elements each, restarting at heads; exclusive: each sum taken before its
//             element's add), a flagged shuffle scan, the warps' carries; the carry into the
//             chunk: the tails of the chunks before, back to the one holding the segment's start
//             (fixed order). The walk checks the order of the segments it marks before a tile's
//             stores; the last block, that the blocks' checks left no segment out. So the offsets
//             are read once, and no store reaches a gap.
// Lane scans, not the tensor cores' row scans A·U: the stores want each lane's 8 consecutive results,
// which WMMA's accumulator reaches only through shared memory (staged, R stored and read back), a
// round trip costlier than the 8 adds (lesson 3c keeps mma.sync's own layout, where A·U pays).
// Unordered or overlapping segments take the warp-per-segment fallback (correct, slower).
#include "05_block_grid/kernels/ragged_launchers.hpp"
#include "common/tensor_core/lane_scan.cuh"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/ragged.cuh"

namespace tcu::detail::device {
namespace {

using namespace tc;  // this lesson's tile primitives read as the shared ones do

// Chunk b of `chunks`: [first, last) of [lo, hi) in whole multiples of kAlign elements (cut at lo, hi).
template <int kAlign>
__device__ __forceinline__ ArrayChunk array_chunk(const RaggedRange& r, std::int64_t chunks, std::int64_t b) {
  if (r.hi <= r.lo) return ArrayChunk{0, 0};
  const std::int64_t lo = static_cast<std::int64_t>(r.lo), hi = static_cast<std::int64_t>(r.hi);
  const std::int64_t t0 = lo / kAlign * kAlign;
  const std::int64_t len = round_up(ceil_div(hi - t0, chunks), std::int64_t(kAlign));
  const std::int64_t c0 = t0 + b * len, c1 = c0 + len;
  return ArrayChunk{c0 > lo ? c0 : lo, c1 < hi ? c1 : hi};
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

// The segment running on past a chunk's end: its sum from its head, or all the chunk's (`through`),
// a block per chunk, all in one wave (4 blocks of 512 fit an SM where the walk's 4 of 256 do; an SM
// of sm_86, sm_87 or sm_89 holds 1536 threads, of sm_75 1024: fewer there, and a second wave).
constexpr int kTailThreads = 512, kTailWarps = kTailThreads / kWarpSize;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 860 && __CUDA_ARCH__ < 900
constexpr int kTailBlocksPerSm = 3;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
constexpr int kTailBlocksPerSm = 2;
#else
constexpr int kTailBlocksPerSm = 4;
#endif
struct ChunkTail { double value; int through; };

// A block tile of this lesson: 8 warps × kRaggedWarpTiles tiles, 4096 consecutive elements.
constexpr int kRaggedWarpTiles = 2, kRaggedTileElems = kBlockWarps * kRaggedWarpTiles * kTileElems;
constexpr int kRaggedWords = kRaggedTileElems / 32;  // bitmaps: one bit per element

// Σ in[from … to) by the block: each thread adds 16-byte pieces in double, kBatch loads in flight
// before their adds, then the warps' sums in warp order (the same bits every run). partial: smem.
__device__ double block_sum(const __half* in, std::int64_t from, std::int64_t to, double* partial) {
  constexpr int kBatch = 4;
  const bool aligned = aligned16(in);
  const std::int64_t stride = std::int64_t(blockDim.x) * kPieceElems;
  std::int64_t p = from / kPieceElems * kPieceElems + threadIdx.x * kPieceElems;
  double s = 0.0;
  for (; p + (kBatch - 1) * stride < to; p += kBatch * stride) {
    Piece x[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k) x[k] = load_piece_within(in, p + k * stride, from, to, aligned);
#pragma unroll
    for (int k = 0; k < kBatch; ++k) s += piece_sum(x[k]);
  }
  for (; p < to; p += stride) s += piece_sum(load_piece_within(in, p, from, to, aligned));
#pragma unroll
  for (int o = kWarpSize / 2; o > 0; o /= 2) s += __shfl_down_sync(kFullMask, s, o);
  if (lane_id() == 0) partial[warp_in_block()] = s;
  __syncthreads();
  double total = 0.0;
  for (int w = 0; w < static_cast<int>(blockDim.x) / kWarpSize; ++w) total += partial[w];
  return total;
}

// ---- 2. tails ---------------------------------------------------------------------------------------
template <class Off>
__global__ void __launch_bounds__(kTailThreads, kTailBlocksPerSm)
    ragged_tails_kernel(const __half* __restrict__ in, std::int64_t ns, Off off, const tc::RaggedRange* range,
                        int chunks, ChunkTail* tails) {
  __shared__ double partial[kTailWarps];
  __shared__ long long from;
  __shared__ int state;  // 0: none runs on, 1: it starts in the chunk, 2: it covers the chunk
  const tc::RaggedRange r = *range;
  if (r.disordered) return;
  const tc::ArrayChunk c = array_chunk<kRaggedTileElems>(r, chunks, blockIdx.x);
  if (threadIdx.x < kWarpSize) {  // the segment that runs on past the chunk's end, if any
    const auto ends_past_last = [&](std::int64_t i) { return off.end(i) > c.last; };
    const std::int64_t s = c.first < c.last ? warp_search(0, ns, ends_past_last, lane_id()) : ns;
    if (threadIdx.x == 0) {
      state = 0;
      from = c.last;
      if (s < ns && off.begin(s) < c.last) {
        const std::int64_t b = off.begin(s);
        state = b >= c.first ? 1 : 2;
        from = b >= c.first ? b : c.first;
      }
    }
  }
  __syncthreads();
  const double sum = state == 0 ? 0.0 : block_sum(in, from, c.last, partial);  // state: the same in the block
  if (threadIdx.x == 0) tails[blockIdx.x] = ChunkTail{sum, state == 2};
}

// The carry into chunk b: the tails of chunks b−1, b−2, … back to the newest that is not `through`,
// added in double by the warp, then a fixed shuffle tree (the same bits every run).
__device__ double carry_into_chunk(const ChunkTail* tails, int b, int lane) {
  long long from = 0;
  for (long long end = b; end > 0; end -= tc::kWarpSize) {
    const long long i = end - 1 - lane;
    const unsigned stop = __ballot_sync(tc::kFullMask, i >= 0 && !tails[i].through);
    if (stop) {
      from = end - __ffs(stop);
      break;
    }
  }
  double s = 0.0;
  for (long long i = from + lane; i < b; i += kWarpSize) s += tails[i].value;
#pragma unroll
  for (int o = kWarpSize / 2; o > 0; o /= 2) s += __shfl_xor_sync(kFullMask, s, o);
  return __shfl_sync(kFullMask, s, 0);
}

// ---- 3. walk -------------------------------------------------------------------------------------
struct RaggedMarks {
  unsigned head[kRaggedWords];  // a segment starts here
  unsigned off[kRaggedWords];   // not part of the chunk's segments: neither read nor written
  long long next;               // the first segment starting at or after the block tile
  int disordered;               // a segment marked here is out of order: nothing may be written
  __device__ void clear(std::int64_t ns) {  // by the block, for a block tile after the next barrier
    for (int i = threadIdx.x; i < kRaggedWords; i += blockDim.x) head[i] = off[i] = 0;
    if (threadIdx.x == 0) next = ns, disordered = 0;
  }
};

// The sector of out holding element i into L2 (a hint). fp32 on Hopper: the 32-byte sector (a bulk
// prefetch, one per lane: uniform address); fp16: the 128-byte line, one instruction for the warp.
template <class OutT>
__device__ __forceinline__ void sector_into_l2(const OutT* out, std::int64_t i) {
#if __CUDA_ARCH__ >= 900
  if constexpr (sizeof(OutT) == 4) {
    const std::size_t sector = __cvta_generic_to_global(out + i) & ~std::size_t(31);
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], 32;" ::"l"(sector));
    return;
  }
#endif
  asm volatile("prefetch.global.L2 [%0];" ::"l"(out + i));
}

// The marks of block tile [t0, t0 + kRaggedTileElems), of which the chunk owns [va, vb), by the whole
// block into cleared marks, for the segments from `cur` on until one starts at or after its end.
// A gap's end sectors of `out` are written only in part: they are read into L2 now, so that the
// stores complete them there (left partial, a sector costs a read-modify-write in DRAM at eviction).
// The order is checked on the way: each segment marked must end by the next one's start, and the
// first must start by va; then every element not marked off lies in a segment marked here, and
// the tile's stores never reach a gap. A failed check sets mk.disordered (the walk then stops).
// Returns (every thread) the first segment that starts at or after the block tile's end (ns if none).
template <class Off, class OutT>
__device__ std::int64_t mark_block_tile(RaggedMarks& mk, const Off& off, std::int64_t ns, std::int64_t cur,
                                        std::int64_t t0, std::int64_t va, std::int64_t vb, const OutT* out) {
  const std::int64_t t1 = t0 + kRaggedTileElems;
  if (threadIdx.x == 0) {  // outside the chunk
    set_bits(mk.off, 0, static_cast<int>(va - t0));
    set_bits(mk.off, static_cast<int>(vb - t0), kRaggedTileElems);
  }
  for (std::int64_t s = cur + threadIdx.x; s < ns; s += blockDim.x) {
    std::int64_t b, e;  // the round's loads at once (one wait): its offsets, the next one's start
    off.get(s, b, e);
    const std::int64_t gap_end = s + 1 < ns ? off.begin(s + 1) : vb;  // the gap after s: [e, gap_end)
    if (s == cur && b > va) mk.disordered = 1;  // elements before it would belong to no segment marked
    if (b >= t1) {
      if (s == cur) atomicMin(&mk.next, static_cast<long long>(s));
      break;
    }  // the first segment at or after t1 (`next`): cur, or the one after a segment begun before t1
    if (s + 1 < ns && gap_end >= t1) atomicMin(&mk.next, static_cast<long long>(s + 1));
    if (e > b && b >= va && b < vb) set_bits(mk.head, static_cast<int>(b - t0), static_cast<int>(b - t0 + 1));
    const std::int64_t g0 = e > va ? e : va;
    if (s + 1 < ns && e > gap_end) mk.disordered = 1;  // runs past the next one's start
    const std::int64_t g1 = gap_end < vb ? gap_end : vb;
    if (g0 < g1) {
      set_bits(mk.off, static_cast<int>(g0 - t0), static_cast<int>(g1 - t0));
      const auto a0 = reinterpret_cast<std::uintptr_t>(out + g0), a1 = reinterpret_cast<std::uintptr_t>(out + g1);
      const bool same = a0 / 32 == (a1 - 1) / 32;                        // the gap within one sector
      if (a0 % 32 != 0 || (same && a1 % 32 != 0)) sector_into_l2(out, g0);  // written elements beside it
      if (!same && a1 % 32 != 0) sector_into_l2(out, g1 - 1);
    }
  }
  __syncthreads();
  // the next block tile's offsets into L1 meanwhile: as many lines as this one read, and some
  const std::int64_t next = mk.next, ahead = next + std::int64_t(threadIdx.x) * 32;
  if (ahead < ns && threadIdx.x < (next - cur) / 32 + 8) off.prefetch(ahead);
  return next;
}

// The flagged scan of one tile by its warp (lane L: elements 8L … 8L+7, heads8 its head bits, x
// their values). `carry` is the value before the tile, `carry_head` whether a head came before in
// the warp. Out: v[j] = the sum from the last head at or before element j (plus carry when there
// is none in the warp; exclusive: without element j itself), last = element 7's inclusive value
// (what runs on), head_seen bit j = a head at or before element j in the warp. Step 1: each lane
// scans its 8 elements, restarting at heads. Step 2: a flagged shuffle scan of the 32 lane totals.
// Step 3: v = prefix + offset (+ carry before the first head). The exclusive scan is the same
// with each element's run taken before its add: 0 at a head, the lanes before at a lane's start.
template <bool kInclusive>
__device__ __forceinline__ void scan_ragged_tile(unsigned heads8, const float (&x)[8], float carry, bool carry_head,
                                                 float (&v)[8], float& last, unsigned& head_seen, int lane) {
  float r[8];
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    if ((heads8 >> j) & 1u) s = 0.0f;
    if (!kInclusive) r[j] = s;
    s += x[j];
    if (kInclusive) r[j] = s;
  }
  // lane L adds the lanes after the nearest lane at or before it that holds a head (lane 0 if none)
  const unsigned with_heads = __ballot_sync(kFullMask, heads8 != 0u);
  const float inc = flagged_lane_scan(with_heads, s, lane);  // s: the lane's total after its last head
  const float up = __shfl_up_sync(kFullMask, inc, 1), ex = lane ? up : 0.0f;  // lanes before, from their last head
  const bool ex_head = (with_heads & ((1u << lane) - 1u)) != 0u;             // a head in the lanes before
  const unsigned started = ~((heads8 & (0u - heads8)) - 1u) & 0xffu;        // bit j: a head at or before j
  head_seen = ex_head || carry_head ? 0xffu : started;
  auto value = [&](bool from_head, float run) { return from_head ? run : ex_head ? run + ex : (run + ex) + carry; };
#pragma unroll
  for (int j = 0; j < 8; ++j) v[j] = value((started >> j) & 1u, r[j]);
  last = kInclusive ? v[7] : value(started >> 7, s);
}

// Three barriers a block tile (marks, warp totals, carries). The marks take turns: the next tile's are
// cleared past the first barrier, where the stores that read them (tile i − 1's) are done.
struct alignas(128) WalkSmem {
  float scratch[tc::kBlockWarps][kTileElems];  // a warp's results on their way out
  RaggedMarks marks[2];                        // block tile i's: marks[i % 2]
  float warp_total[tc::kBlockWarps], warp_carry[tc::kBlockWarps];
  int warp_head[tc::kBlockWarps];
  double chunk_carry;  // a chunk carries across thousands of block tiles: in double, no fp32 chain
  long long s_open, cursor;
  int last_block;
};

// One tile's results to out[first …], through the warp's scratch: whole 512-byte rows of stores
// when all 256 are written (and out is aligned), else element by element, 32 consecutive ones a
// store, skipping the `off` ones (off_words: the tile's 8 words of off bits).
template <class OutT>
__device__ void write_tile(OutT* out, std::int64_t first, const float (&v)[8], unsigned off8, const unsigned* off_words,
                           float* scratch, int lane) {
  alignas(16) OutT o[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) o[j] = tc::from_float<OutT>(v[j]);
  constexpr int kVecs = static_cast<int>(8 * sizeof(OutT) / 16);  // 16-byte vectors per lane
  uint4* s = reinterpret_cast<uint4*>(scratch);
#pragma unroll
  for (int h = 0; h < kVecs; ++h) s[lane * kVecs + h] = reinterpret_cast<const uint4*>(o)[h];
  __syncwarp();
  if (__all_sync(tc::kFullMask, off8 == 0) && tc::aligned16(out + first)) {
#pragma unroll
    for (int h = 0; h < kVecs; ++h)
      __stcs(reinterpret_cast<uint4*>(out + first) + h * tc::kWarpSize + lane, s[h * tc::kWarpSize + lane]);
  } else {
    const OutT* e = reinterpret_cast<const OutT*>(scratch);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (!((off_words[j] >> lane) & 1u)) out[first + j * tc::kWarpSize + lane] = e[j * tc::kWarpSize + lane];
  }
  __syncwarp();
}

// The segments a block marked: [from, to) had their order checked (from = -1: an empty chunk).
struct ChunkSpan { long long from, to; };
// Each block's span, then the last block to finish checks that the spans abut and cover the
// non-empty segments from the first to the last: the walk found its chunks' segments by searches
// that assume order, so unordered offsets can leave segments no block checked. Any gap between
// spans sends the call to the fallback (which writes every segment again).
__device__ void check_spans(tc::RaggedRange* range, ChunkSpan* spans, ChunkSpan mine, int* last_block) {
  if (threadIdx.x == 0) {
    spans[blockIdx.x] = mine;
    __threadfence();
    *last_block = atomicAdd(&range->walked, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!*last_block) return;
  __threadfence();
  const long long first = __ldcg(&range->first), last = __ldcg(&range->last);
  bool bad = false;
  const int blocks = static_cast<int>(gridDim.x);
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) {  // the empty chunks come last (array_chunk)
    const long long from = __ldcg(&spans[b].from), to = __ldcg(&spans[b].to);
    if (from < 0) continue;
    bad |= b == 0 ? from > first : from > __ldcg(&spans[b - 1].to);
    if (b + 1 == blocks || __ldcg(&spans[b + 1].from) < 0) bad |= to < last;
  }
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr(&range->disordered, 1u);
}

template <class OutT, class Off, bool kInclusive>
__global__ void __launch_bounds__(tc::kBlockThreads, 4)  // 4 blocks per SM: more offset loads in flight
    ragged_walk_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t ns, Off off,
                       tc::RaggedRange* range, int chunks, const ChunkTail* tails, ChunkSpan* spans) {
  __shared__ WalkSmem sm;
  const tc::RaggedRange r = *range;
  if (r.disordered) return;
  const tc::ArrayChunk c = array_chunk<kRaggedTileElems>(r, chunks, blockIdx.x);
  if (c.first >= c.last) return check_spans(range, spans, ChunkSpan{-1, -1}, &sm.last_block);
  const int lane = tc::lane_id(), warp = tc::warp_in_block();
  if (warp == 0) {  // where the chunk lies among the segments
    const std::int64_t first = first_segment_from(off, ns, c.first, lane);
    if (lane == 0) {
      sm.s_open = first < ns && off.begin(first) < c.first ? first : -1;  // began in an earlier chunk
      sm.cursor = first > 0 ? first - 1 : 0;
      sm.chunk_carry = 0.0;
    }
  }
  __syncthreads();
  if (warp == 0 && sm.s_open >= 0) {  // the carry into the chunk: the tails of the chunks before (fixed order)
    const double carry = carry_into_chunk(tails, blockIdx.x, lane);
    if (lane == 0) sm.chunk_carry = carry;
  }
  sm.marks[0].clear(ns);
  __syncthreads();
  double block_carry = sm.chunk_carry;  // thread 0's
  std::int64_t cur = sm.cursor;
  const long long from = cur;
  long long to = cur;
  const bool aligned = tc::aligned16(in);
  const int warp_first = warp * kRaggedWarpTiles * kTileElems + lane * tc::kPieceElems;  // in the block tile
  tc::Piece next[kRaggedWarpTiles];
  const __half* lane_in = in + warp_first;  // + a block tile's start: this lane's pieces
  auto load = [&](std::int64_t t0) {
    if (aligned && t0 >= c.first && t0 + kRaggedTileElems <= c.last) {  // inside the chunk: whole loads
#pragma unroll
      for (int k = 0; k < kRaggedWarpTiles; ++k)
        next[k].v = __ldcs(reinterpret_cast<const uint4*>(lane_in + t0 + k * kTileElems));
      return;
    }
#pragma unroll
    for (int k = 0; k < kRaggedWarpTiles; ++k)
      next[k] = tc::load_piece_within(in, t0 + warp_first + k * kTileElems, c.first, c.last, aligned);
  };
  std::int64_t t0 = c.first / kRaggedTileElems * kRaggedTileElems;
  load(t0);
  for (int i = 0; t0 < c.last; t0 += kRaggedTileElems, i ^= 1) {
    RaggedMarks& mk = sm.marks[i];
    const std::int64_t va = t0 > c.first ? t0 : c.first;
    const std::int64_t vb = t0 + kRaggedTileElems < c.last ? t0 + kRaggedTileElems : c.last;
    // 1. the marks: heads, off, last elements (from the offsets that fall in the block tile)
    const std::int64_t following = mark_block_tile(mk, off, ns, cur, t0, va, vb, out);
    if (mk.disordered) {  // (the same value in every thread) the fallback writes every segment
      if (threadIdx.x == 0) atomicOr(&range->disordered, 1u);
      return;
    }
    sm.marks[i ^ 1].clear(ns);
    // 2. the lanes' elements (`off` ones reach no result: a gap ends at a head); the next loads go out
    float x[kRaggedWarpTiles][8];
    unsigned heads[kRaggedWarpTiles], offs[kRaggedWarpTiles];
#pragma unroll
    for (int k = 0; k < kRaggedWarpTiles; ++k) {
      heads[k] = bits8(mk.head, warp_first + k * kTileElems);
      offs[k] = bits8(mk.off, warp_first + k * kTileElems);
      const __half* h = reinterpret_cast<const __half*>(&next[k].v);
#pragma unroll
      for (int j = 0; j < 8; ++j) x[k][j] = __half2float(h[j]);
    }
    if (t0 + kRaggedTileElems < c.last) load(t0 + kRaggedTileElems);
    // 3. every warp scans its tiles (flagged), the carry passing from tile to tile
    float v[kRaggedWarpTiles][8];
    unsigned seen[kRaggedWarpTiles];
    float wc = 0.0f;
    bool wh = false;
#pragma unroll
    for (int k = 0; k < kRaggedWarpTiles; ++k) {
      float last;
      scan_ragged_tile<kInclusive>(heads[k], x[k], wc, wh, v[k], last, seen[k], lane);
      wc = __shfl_sync(tc::kFullMask, last, tc::kWarpSize - 1);
      wh = __shfl_sync(tc::kFullMask, (seen[k] >> 7) & 1u, tc::kWarpSize - 1) != 0;
    }
    if (lane == 0) sm.warp_total[warp] = wc, sm.warp_head[warp] = wh;  // the sum after its last head (all without)
    __syncthreads();
    // 4. the warps' carries: the block carry, then the warp totals, restarting at heads (fixed order)
    if (threadIdx.x == 0) {
      for (int w = 0; w < tc::kBlockWarps; ++w) {
        sm.warp_carry[w] = static_cast<float>(block_carry);
        block_carry = sm.warp_head[w] ? static_cast<double>(sm.warp_total[w]) : block_carry + sm.warp_total[w];
      }
    }
    __syncthreads();
    // 5. the carry added before the warp's first head; results out
    const float carry = sm.warp_carry[warp];
#pragma unroll
    for (int k = 0; k < kRaggedWarpTiles; ++k) {
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (!((seen[k] >> j) & 1u)) v[k][j] += carry;
      write_tile(out, t0 + warp * kRaggedWarpTiles * kTileElems + k * kTileElems, v[k], offs[k],
                 mk.off + (warp * kRaggedWarpTiles + k) * kTileElems / 32, sm.scratch[warp], lane);
    }
    cur = following - 1 > cur ? following - 1 : cur;
    to = following;
  }
  check_spans(range, spans, ChunkSpan{from, to}, &sm.last_block);
}

// Range, tails, walk (then, for offset arrays, the fallback, which returns at once when the
// segments are ordered).
template <class OutT, class Off, class Range, class Fallback>
cudaError_t ragged_scan(const __half* in, OutT* out, std::int64_t ns, Off off, bool inclusive, Range&& find,
                        Fallback&& fallback, cudaStream_t stream) {
  auto* walk = inclusive ? ragged_walk_kernel<OutT, Off, true> : ragged_walk_kernel<OutT, Off, false>;
  const int chunks = resident_grid_size(reinterpret_cast<const void*>(walk), kBlockThreads, 1 << 30);  // a wave
  TempBuffer<unsigned char> temp;
  constexpr std::size_t kRangeBytes = 64;  // the RaggedRange, then the chunks' tails, then their spans
  const std::size_t tail_bytes = chunks * sizeof(ChunkTail);
  if (cudaError_t e = temp.allocate(std::int64_t(kRangeBytes + tail_bytes + chunks * sizeof(ChunkSpan)), stream);
      e != cudaSuccess)
    return e;
  auto* range = reinterpret_cast<RaggedRange*>(temp.get());
  auto* tails = reinterpret_cast<ChunkTail*>(temp.get() + kRangeBytes);
  auto* spans = reinterpret_cast<ChunkSpan*>(temp.get() + kRangeBytes + tail_bytes);
  if (cudaError_t e = find(range); e != cudaSuccess) return e;
  ragged_tails_kernel<Off><<<chunks, kTailThreads, 0, stream>>>(in, ns, off, range, chunks, tails);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  walk<<<chunks, kBlockThreads, 0, stream>>>(in, out, ns, off, range, chunks, tails, spans);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  return fallback(range);
}

}  // namespace

template <class OutT, class OffsetT>
cudaError_t launch_ragged_scan(const __half* in, OutT* out, std::int64_t ns, const OffsetT* begin, const OffsetT* end,
                               bool inclusive, cudaStream_t stream) {
  auto find = [&](RaggedRange* r) { return find_ragged_ends(r, begin, end, ns, nullptr, stream); };
  auto fallback = [&](const RaggedRange* r) { 
    return ragged_scan_fallback(in, out, ns, begin, end, inclusive, r, stream);
  };
  return ragged_scan(in, out, ns, OffsetArrays<OffsetT>{begin, end}, inclusive, find, fallback, stream);
}
template <class OutT>
cudaError_t launch_ragged_scan_fixed(const __half* in, OutT* out, std::int64_t ns, std::int64_t size, bool inclusive,
                                     cudaStream_t stream) {
  auto find = [&](RaggedRange* r) { return fixed_ragged_range(r, ns, size, stream); };
  auto none = [](const RaggedRange*) { return cudaSuccess; };  // fixed offsets are ordered
  return ragged_scan(in, out, ns, FixedOffsets{size}, inclusive, find, none, stream);
}

#define TCU_RAGGED_SCAN(OutT, OffsetT)                                                                            \
  template cudaError_t launch_ragged_scan(const __half*, OutT*, std::int64_t, const OffsetT*, const OffsetT*, bool, \
                                          cudaStream_t);
TCU_RAGGED_SCAN(float, std::int32_t)
TCU_RAGGED_SCAN(float, std::int64_t)
TCU_RAGGED_SCAN(__half, std::int32_t)
TCU_RAGGED_SCAN(__half, std::int64_t)
template cudaError_t launch_ragged_scan_fixed(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_ragged_scan_fixed(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
#undef TCU_RAGGED_SCAN

}  // namespace tcu::detail::device
