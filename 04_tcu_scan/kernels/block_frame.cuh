#pragma once
// The block frame of lessons 01, 02, 05, 06 (docs/algorithms.md, glossary): a block stages a
// block tile of up to 4096 elements into shared memory, padding every segment to its own rows
// (zeros after it) so that any alignment and any segment size suit WMMA; the lesson scans it on
// tensor cores into fp32 (sm.r); the frame writes it out, shifted by one for the exclusive scan.
// A block tile holds whole segments, or 4096 elements of a longer one (walked with a carry).
#include <cuda_fp16.h>

#include <cstdint>

#include "common/int_math.hpp"
#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::scan {

namespace wmma = nvcuda::wmma;
using tc::kBlockThreads;
using tc::kBlockWarps;
using tc::SplitScratch;
using tc::kTile;
using tc::kTileElems;
using tc::kWarpSize;
// 4 resident blocks per SM (shared memory allows 5): caps registers at 64 per thread, which
// without the bound leave room for only 3 blocks.
inline constexpr int kFrameMinBlocksPerSm = 4;
inline constexpr int kFrameElems = 4096;                      // elements of a block tile
inline constexpr int kFrameTiles = kFrameElems / kTileElems;  // 16
static_assert(kFrameElems % kTileElems == 0 && kBlockThreads >= kTileElems, "block tile = whole tiles");

struct FrameLayout {  // built by the launcher, passed to the kernel by value
  std::int64_t num_segments = 0;
  std::int64_t segment_size = 0;
  int seg_len = 0;     // input elements of one segment inside a block tile
  int seg_shift = -1;  // log2(seg_len) when it is a power of two, else -1 (fast div/mod)
  int seg_stride = 0;  // padded length of a segment in shared memory (multiple of 16)
  int segs_per_block_tile = 1;
  std::int64_t block_tiles_per_segment = 1;  // > 1 only for segment_size > kFrameElems
  std::int64_t items = 0;  // work items: groups of whole segments, or long segments
};

// seg_stride: the padded length the lesson wants for segment_size <= kFrameElems.
inline FrameLayout make_frame_layout(std::int64_t num_segments, std::int64_t segment_size, int seg_stride) {
  FrameLayout fl;
  fl.num_segments = num_segments;
  fl.segment_size = segment_size;
  if (segment_size > kFrameElems) {
    fl.seg_len = fl.seg_stride = kFrameElems;
    fl.block_tiles_per_segment = ceil_div(segment_size, kFrameElems);
    fl.items = num_segments;
  } else {
    fl.seg_len = static_cast<int>(segment_size);
    fl.seg_stride = seg_stride;
    fl.segs_per_block_tile = kFrameElems / seg_stride;
    fl.items = ceil_div(num_segments, fl.segs_per_block_tile);
  }
  for (int s = 0; s < 31; ++s)
    if ((1 << s) == fl.seg_len) fl.seg_shift = s;
  return fl;
}

inline int next_pow2_at_least(std::int64_t v, int lo) {
  int p = lo;
  while (p < v) p *= 2;
  return p;
}

struct alignas(128) FrameSmem {
  __half a[kFrameElems];  // the staged block tile, padded with zeros
  float r[kFrameElems];   // the lesson's fp32 inclusive scan of it
  tc::SplitScratch scratch[kBlockWarps];
  __half u[kTileElems], l[kTileElems], x[kTileElems];  // constant tiles (x: the lesson's own)
  float tile_prefix[kFrameTiles];  // added to every element of a tile (block level, Alg. 7)
};

// Element e of X·C in fp32 (X fp32, C fp16, row-major in shared memory): one accumulator, so
// that the fallback leaves the MMA path's registers alone.
__device__ inline float times_tile_fp32_at(const float* x, const __half* c, int e) {
  const int row = e / kTile, col = e % kTile;
  float y = 0.0f;
  for (int k = 0; k < kTile; ++k) y += x[row * kTile + k] * __half2float(c[k * kTile + col]);
  return y;
}

// Block tile `index` of work item `item`: input/output offset g0, `count` elements, `segs` segments.
struct BlockTile {
  std::int64_t item = 0, index = 0, g0 = 0;
  int count = 0, segs = 0;
};
__device__ inline BlockTile block_tile(const FrameLayout& fl, std::int64_t item, std::int64_t index) {
  BlockTile t;
  t.item = item;
  t.index = index;
  const std::int64_t seg0 = item * fl.segs_per_block_tile;
  t.segs = static_cast<int>(min(static_cast<std::int64_t>(fl.segs_per_block_tile), fl.num_segments - seg0));
  t.g0 = seg0 * fl.segment_size + index * kFrameElems;
  t.count = fl.block_tiles_per_segment == 1
                ? t.segs * fl.seg_len
                : static_cast<int>(min(static_cast<std::int64_t>(kFrameElems), fl.segment_size - index * kFrameElems));
  return t;
}

// Input element q of the block tile: segment seg, position pos in it (padded index: seg·seg_stride + pos).
struct SegPos {
  int seg, pos;
};
__device__ inline SegPos split_index(int q, const FrameLayout& fl) {
  if (fl.seg_shift >= 0) return {q >> fl.seg_shift, q & (fl.seg_len - 1)};
  const int s = q / fl.seg_len;
  return {s, q - s * fl.seg_len};
}

// Elements before the first 16-byte boundary of p (p is at least 2- or 4-byte aligned).
template <class T>
__device__ inline int elements_to_16b_boundary(const T* p) {
  return static_cast<int>(((16 - (reinterpret_cast<std::uintptr_t>(p) & 15)) & 15) / sizeof(T));
}

// Stage `count` elements at src (any alignment) into sm.a in the padded layout: streamed 16-byte
// loads (the input is read once) where aligned, element by element at the ends.
__device__ inline void stage_block_tile(const __half* __restrict__ src, int count, const FrameLayout& fl,
                                        FrameSmem& sm, int tid) {
  constexpr int kVec = 8;  // halves per 16-byte load
  const bool packed = fl.seg_len == fl.seg_stride;
  if (!packed || count < kFrameElems) {
    for (int v = tid; v < kFrameElems / kVec; v += kBlockThreads)
      reinterpret_cast<uint4*>(sm.a)[v] = make_uint4(0, 0, 0, 0);
    __syncthreads();
  }
  auto put = [&](int q, __half v) {
    const SegPos sp = split_index(q, fl);
    sm.a[sp.seg * fl.seg_stride + sp.pos] = v;
  };
  const int head = min(count, elements_to_16b_boundary(src));
  const int nvec = (count - head) / kVec;
  for (int v = tid; v < nvec; v += kBlockThreads) {
    const int q0 = head + kVec * v;
    const uint4 w = __ldcs(reinterpret_cast<const uint4*>(src + q0));
    if (packed && head == 0) {
      reinterpret_cast<uint4*>(sm.a)[v] = w;
    } else {
      const __half* h = reinterpret_cast<const __half*>(&w);
#pragma unroll
      for (int e = 0; e < kVec; ++e) put(q0 + e, h[e]);
    }
  }
  for (int q = tid; q < head; q += kBlockThreads) put(q, src[q]);
  for (int q = head + kVec * nvec + tid; q < count; q += kBlockThreads) put(q, src[q]);
}

// The inclusive prefix at padded index k of the block tile (k = -1: the carry itself).
__device__ inline float frame_inclusive(const FrameSmem& sm, int k, float carry) {
  return k < 0 ? carry : sm.r[k] + sm.tile_prefix[k / kTileElems] + carry;
}

// Write block tile t: out[q] = the inclusive or exclusive prefix of input element q, with
// streamed 16-byte stores where aligned.
template <class OutT, bool kInclusive>
__device__ inline void write_block_tile(OutT* __restrict__ out, const BlockTile& t, const FrameLayout& fl,
                                        const FrameSmem& sm, float carry, int tid) {
  OutT* __restrict__ dst = out + t.g0;
  const int count = t.count;
  auto value = [&](int q) -> OutT {
    const SegPos sp = split_index(q, fl);
    const int k = sp.seg * fl.seg_stride + sp.pos;
    if (kInclusive) return tc::from_float<OutT>(frame_inclusive(sm, k, carry));
    if (sp.pos == 0) return tc::from_float<OutT>(t.index > 0 ? carry : 0.0f);  // the shift by one
    return tc::from_float<OutT>(frame_inclusive(sm, k - 1, carry));
  };
  constexpr int kVec = 16 / sizeof(OutT);
  const int head = min(count, elements_to_16b_boundary(dst));
  const int nvec = (count - head) / kVec;
  if (kInclusive && fl.seg_len == fl.seg_stride && head == 0) {
    // Packed and aligned (power-of-two segment sizes): output q is padded index q and a vector
    // never straddles a tile: one 16-byte shared load per 4 results.
    for (int v = tid; v < nvec; v += kBlockThreads) {
      const int q0 = kVec * v;
      const float tp = sm.tile_prefix[q0 / kTileElems];
      uint4 w;
      OutT* o = reinterpret_cast<OutT*>(&w);
#pragma unroll
      for (int h = 0; h < kVec / 4; ++h) {
        const float4 r4 = reinterpret_cast<const float4*>(sm.r + q0)[h];
        o[4 * h + 0] = tc::from_float<OutT>((r4.x + tp) + carry);
        o[4 * h + 1] = tc::from_float<OutT>((r4.y + tp) + carry);
        o[4 * h + 2] = tc::from_float<OutT>((r4.z + tp) + carry);
        o[4 * h + 3] = tc::from_float<OutT>((r4.w + tp) + carry);
      }
      __stcs(reinterpret_cast<uint4*>(dst + q0), w);
    }
    for (int q = kVec * nvec + tid; q < count; q += kBlockThreads) dst[q] = value(q);
    return;
  }
  for (int v = tid; v < nvec; v += kBlockThreads) {
    const int q0 = head + kVec * v;
    uint4 w;
    OutT* o = reinterpret_cast<OutT*>(&w);
#pragma unroll
    for (int e = 0; e < kVec; ++e) o[e] = value(q0 + e);
    __stcs(reinterpret_cast<uint4*>(dst + q0), w);
  }
  for (int q = tid; q < head; q += kBlockThreads) dst[q] = value(q);
  for (int q = head + kVec * nvec + tid; q < count; q += kBlockThreads) dst[q] = value(q);
}

// ---- the walk: items blockIdx.x, + gridDim.x, …, each block tile by block tile --------------
// A full, packed, 16-byte aligned block tile (the common case) is loaded into registers two
// block tiles ahead, so that loads are in flight while earlier block tiles are scanned and
// written (one ahead leaves the blocks waiting for DRAM at every block tile): two register
// buffers, used alternately.
inline constexpr int kPrefetchLoads = kFrameElems / 8 / kBlockThreads;  // 16-byte loads per thread
using FrameRegs = uint4[kPrefetchLoads];

// The block tile after t in the walk; has = false when the block is done.
__device__ inline BlockTile next_block_tile(const FrameLayout& fl, const BlockTile& t, bool& has) {
  const bool last = t.index + 1 >= fl.block_tiles_per_segment;
  const std::int64_t item = last ? t.item + gridDim.x : t.item;
  has = item < fl.items;
  return has ? block_tile(fl, item, last ? 0 : t.index + 1) : BlockTile{};
}
// Loads block tile t into regs when it can be prefetched (full, packed, aligned): whether it did.
__device__ inline bool prefetch_block_tile(FrameRegs& regs, const __half* in, const FrameLayout& fl,
                                           const BlockTile& t, int tid) {
  const uint4* src = reinterpret_cast<const uint4*>(in + t.g0);
  if (fl.seg_len != fl.seg_stride || t.count != kFrameElems || (reinterpret_cast<std::uintptr_t>(src) & 15) != 0)
    return false;
#pragma unroll
  for (int i = 0; i < kPrefetchLoads; ++i) regs[i] = __ldcs(src + i * kBlockThreads + tid);
  return true;
}

// The block's walk: each block tile is staged into sm.a, scanned by the lesson's `scan(t)` (every
// thread: sm.a → sm.r and sm.tile_prefix) and written out; a segment longer than a block tile
// carries its last prefix into its next block tile.
template <class OutT, bool kInclusive, class Scan>
__device__ __forceinline__ void walk_frame(const __half* in, OutT* out, const FrameLayout& fl, FrameSmem& sm,
                                           Scan&& scan) {
  const int tid = threadIdx.x;
  if (blockIdx.x >= fl.items) return;
  FrameRegs regs_a, regs_b;
  BlockTile cur = block_tile(fl, blockIdx.x, 0), next, after;  // scanned now; loads in flight
  bool has_next = false, has_after = false;
  bool cur_fast = prefetch_block_tile(regs_a, in, fl, cur, tid), next_fast = false, after_fast = false;
  next = next_block_tile(fl, cur, has_next);
  next_fast = has_next && prefetch_block_tile(regs_b, in, fl, next, tid);
  float carry = 0.0f;
  auto step = [&](FrameRegs& mine) -> bool {  // block tile `cur`, its loads in `mine`
    __syncthreads();  // the previous block tile is written out (and the lesson's constants built)
    if (cur_fast) {
#pragma unroll
      for (int i = 0; i < kPrefetchLoads; ++i) reinterpret_cast<uint4*>(sm.a)[i * kBlockThreads + tid] = mine[i];
    } else {
      stage_block_tile(in + cur.g0, cur.count, fl, sm, tid);
    }
    after = BlockTile{};  // the block tile after next, its loads into `mine` (free now)
    has_after = after_fast = false;
    if (has_next) {
      after = next_block_tile(fl, next, has_after);
      after_fast = has_after && prefetch_block_tile(mine, in, fl, after, tid);
    }
    if (tid < kFrameTiles) sm.tile_prefix[tid] = 0.0f;
    __syncthreads();
    scan(cur);
    __syncthreads();
    write_block_tile<OutT, kInclusive>(out, cur, fl, sm, carry, tid);
    carry = cur.index + 1 >= fl.block_tiles_per_segment ? 0.0f : frame_inclusive(sm, cur.count - 1, carry);
    if (!has_next) return false;
    cur = next, cur_fast = next_fast;
    next = after, has_next = has_after, next_fast = after_fast;
    return true;
  };
  while (step(regs_a) && step(regs_b)) {
  }
}

// Launches a frame kernel (the inclusive or the exclusive instance) on one resident wave of
// blocks, fewer when there is less work: a partial second wave of persistent blocks would cost up
// to half a wave of time. Each block grid-strides over the work items.
template <class OutT>
cudaError_t launch_frame(void (*inclusive_kernel)(const __half*, OutT*, FrameLayout),
                         void (*exclusive_kernel)(const __half*, OutT*, FrameLayout), bool inclusive,
                         const __half* in, OutT* out, const FrameLayout& fl, cudaStream_t stream) {
  auto* k = inclusive ? inclusive_kernel : exclusive_kernel;
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(k), kBlockThreads, fl.items);
  k<<<grid, kBlockThreads, 0, stream>>>(in, out, fl);
  return cudaGetLastError();
}

}  // namespace tcu::detail::scan
