#pragma once
// The block-level frame shared by the block algorithms (Scan16, Scan256, the block level,
// MatMulScan): a block stages a *slab* of up to 4096 input elements into shared memory with
// 16-byte loads, laid out as padded segments (each segment starts a 16-element row, the pad is
// zero), lets the algorithm scan the slab on tensor cores into fp32, then writes the slab out
// with 16-byte stores, shifted by one for the exclusive scan. Staging makes any pointer
// alignment and any segment size legal for WMMA (32-byte aligned tiles, ldm = 16).
//   segment_size <= 4096: a slab holds segs_per_slab whole segments, each padded to
//                         seg_stride elements (chosen by the algorithm);
//   segment_size >  4096: one block walks a segment slab by slab, carrying the running sum.
// (common/tensor_core/staging.cuh stages one 16×16 tile per warp; a block-level scan needs a
// whole slab with every segment padded to its own rows, hence this layout. Its 16-byte loads
// are staging.cuh's tc::load_piece.)
#include <cuda_fp16.h>

#include <cstdint>

#include "04_tcu_scan/kernels/scan_tiles.cuh"
#include "common/int_math.hpp"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"

namespace tcu::detail::scan {

using tc::kBlockThreads;  // the block of the block level, defined once (common/tensor_core/tile_geometry.hpp)
using tc::kBlockWarps;
// 4 resident blocks per SM (shared memory allows 5): caps registers at 64 per thread, which
// without the bound reach 80-95 and leave room for only 3 blocks.
inline constexpr int kBlockMinBlocksPerSm = 4;
inline constexpr int kSlab = 4096;                     // elements staged per slab
inline constexpr int kSlabTiles = kSlab / kTileElems;  // 16
static_assert(kSlab % kTileElems == 0 && kBlockThreads >= kTileElems, "slab = whole tiles");

struct SlabLayout {
  std::int64_t num_segments = 0;
  std::int64_t segment_size = 0;
  int seg_len = 0;         // input elements of one segment inside a slab
  int seg_shift = -1;      // log2(seg_len) when it is a power of two, else -1 (fast div/mod)
  int seg_stride = 0;      // padded length of a segment in shared memory (multiple of 16)
  int segs_per_slab = 1;
  std::int64_t slabs = 1;  // slabs per segment (> 1 only for segment_size > kSlab)
  std::int64_t items = 0;  // work items: groups of segments, or whole segments walked in slabs
};

// seg_stride: the padded length the algorithm wants for segment_size <= kSlab.
inline SlabLayout make_slab_layout(std::int64_t num_segments, std::int64_t segment_size, int seg_stride) {
  SlabLayout sl;
  sl.num_segments = num_segments;
  sl.segment_size = segment_size;
  if (segment_size > kSlab) {
    sl.seg_len = sl.seg_stride = kSlab;
    sl.segs_per_slab = 1;
    sl.slabs = ceil_div(segment_size, kSlab);
    sl.items = num_segments;
  } else {
    sl.seg_len = static_cast<int>(segment_size);
    sl.seg_stride = seg_stride;
    sl.segs_per_slab = kSlab / seg_stride;
    sl.items = ceil_div(num_segments, sl.segs_per_slab);
  }
  sl.seg_shift = -1;
  for (int s = 0; s < 31; ++s)
    if ((1 << s) == sl.seg_len) sl.seg_shift = s;
  return sl;
}

inline int next_pow2_at_least(std::int64_t v, int lo) {
  int p = lo;
  while (p < v) p *= 2;
  return p;
}

struct alignas(128) BlockSmem {
  __half a[kSlab];                   // the staged input, padded with zeros
  float r[kSlab];                    // the algorithm's fp32 inclusive scan of the slab
  SplitScratch scratch[kBlockWarps];
  __half u[kTileElems], l[kTileElems], x[kTileElems];  // constant tiles (x: algorithm's own)
  float tile_prefix[kSlabTiles];     // added to every element of a tile (block level, Alg. 7)
};

struct SegPos {
  int seg, pos;
};
__device__ inline SegPos split_index(int q, const SlabLayout& sl) {
  if (sl.seg_shift >= 0) return {q >> sl.seg_shift, q & (sl.seg_len - 1)};
  const int s = q / sl.seg_len;
  return {s, q - s * sl.seg_len};
}

// Elements before the first 16-byte boundary of p (p is at least 2- or 4-byte aligned).
template <class T>
__device__ inline int elements_to_16b_boundary(const T* p) {
  return static_cast<int>(((16 - (reinterpret_cast<std::uintptr_t>(p) & 15)) & 15) / sizeof(T));
}

// Stage `count` elements at src (any alignment) into sm.a in the padded layout.
__device__ inline void stage_slab(const __half* __restrict__ src, int count, const SlabLayout& sl, BlockSmem& sm,
                                  int tid) {
  const bool packed = sl.seg_len == sl.seg_stride;
  if (!packed || count < kSlab) {
    uint4* a4 = reinterpret_cast<uint4*>(sm.a);
    for (int v = tid; v < kSlab / tc::kPieceElems; v += kBlockThreads) a4[v] = tc::zero_piece().v;
    __syncthreads();
  }
  auto put = [&](int q, __half v) {
    const SegPos sp = split_index(q, sl);
    sm.a[sp.seg * sl.seg_stride + sp.pos] = v;
  };
  const int head = min(count, elements_to_16b_boundary(src));
  const int nvec = (count - head) / tc::kPieceElems;
  for (int v = tid; v < nvec; v += kBlockThreads) {
    const int q0 = head + tc::kPieceElems * v;
    // Streamed (read once); 16-byte aligned and all 8 inside the slab by construction.
    const tc::Piece w = tc::load_piece<tc::Cache::streaming>(src + q0, tc::kPieceElems, true);
    if (packed && head == 0) {
      reinterpret_cast<uint4*>(sm.a)[v] = w.v;
    } else {
      const __half* h = reinterpret_cast<const __half*>(&w.v);
#pragma unroll
      for (int e = 0; e < tc::kPieceElems; ++e) put(q0 + e, h[e]);
    }
  }
  for (int q = tid; q < head; q += kBlockThreads) put(q, src[q]);
  for (int q = head + tc::kPieceElems * nvec + tid; q < count; q += kBlockThreads) put(q, src[q]);
}

// The inclusive prefix at padded index k of the slab (k = -1: the carry itself).
__device__ inline float slab_inclusive(const BlockSmem& sm, int k, float carry) {
  return k < 0 ? carry : sm.r[k] + sm.tile_prefix[k / kTileElems] + carry;
}

// Write the slab: out[q] = inclusive or exclusive prefix of input element q.
template <class OutT, bool kInclusive>
__device__ inline void write_slab(OutT* __restrict__ dst, int count, const SlabLayout& sl, const BlockSmem& sm,
                                  float carry, bool continues, int tid) {
  auto value = [&](int q) -> OutT {
    const SegPos sp = split_index(q, sl);
    const int k = sp.seg * sl.seg_stride + sp.pos;
    if (kInclusive) return tc::from_float<OutT>(slab_inclusive(sm, k, carry));
    if (sp.pos == 0) return tc::from_float<OutT>(continues ? carry : 0.0f);  // the shift by one
    return tc::from_float<OutT>(slab_inclusive(sm, k - 1, carry));
  };
  constexpr int kVec = 16 / sizeof(OutT);
  const int head = min(count, elements_to_16b_boundary(dst));
  const int nvec = (count - head) / kVec;
  if (kInclusive && sl.seg_len == sl.seg_stride && head == 0) {
    // Packed and aligned (every power-of-two segment size): output q is padded index q, and a
    // vector never straddles a tile, so it is one 16-byte shared load per 4 results.
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
    __stcs(reinterpret_cast<uint4*>(dst + q0), w);  // streamed: written once
  }
  for (int q = tid; q < head; q += kBlockThreads) dst[q] = value(q);
  for (int q = head + kVec * nvec + tid; q < count; q += kBlockThreads) dst[q] = value(q);
}

// A slab of the block's work: input/output offset g0, `count` elements, `segs` segments.
struct SlabRef {
  std::int64_t item = 0, slab = 0, g0 = 0;
  int count = 0, segs = 0;
};
__device__ inline SlabRef slab_ref(const SlabLayout& sl, std::int64_t item, std::int64_t slab) {
  SlabRef r;
  r.item = item;
  r.slab = slab;
  const std::int64_t seg0 = item * sl.segs_per_slab;
  r.segs = static_cast<int>(min(static_cast<std::int64_t>(sl.segs_per_slab), sl.num_segments - seg0));
  r.g0 = seg0 * sl.segment_size + slab * kSlab;
  r.count = sl.slabs == 1 ? r.segs * sl.seg_len
                          : static_cast<int>(min(static_cast<std::int64_t>(kSlab), sl.segment_size - slab * kSlab));
  return r;
}

// The slab after r in this block's walk (the next slab of the segment, else the first slab
// of the block's next item); has = false when the block is done.
__device__ inline SlabRef next_slab(const SlabLayout& sl, const SlabRef& r, bool& has) {
  const bool last = r.slab + 1 >= sl.slabs;
  const std::int64_t item = last ? r.item + gridDim.x : r.item;
  has = item < sl.items;
  return has ? slab_ref(sl, item, last ? 0 : r.slab + 1) : SlabRef{};
}

// The common case (a full, packed, 16-byte aligned slab) is loaded into registers two slabs
// ahead, so that loads are in flight while earlier slabs are scanned and written: with one
// slab ahead the blocks wait for DRAM latency at every slab.
inline constexpr int kPrefetchPieces = kSlab / tc::kPieceElems / kBlockThreads;  // pieces per thread and slab
__device__ inline bool prefetchable(const __half* in, const SlabLayout& sl, const SlabRef& r) {
  return sl.seg_len == sl.seg_stride && r.count == kSlab && tc::aligned16(in + r.g0);
}
__device__ inline void prefetch_slab(tc::Piece (&regs)[kPrefetchPieces], const __half* in, const SlabRef& r, int tid) {
  const __half* src = in + r.g0;
#pragma unroll
  for (int i = 0; i < kPrefetchPieces; ++i)
    regs[i] = tc::load_piece<tc::Cache::streaming>(src + (i * kBlockThreads + tid) * tc::kPieceElems, tc::kPieceElems,
                                                   true);
}

// The frame. Algo provides:
//   static __device__ void init(BlockSmem&, const SlabLayout&, int tid)   constant tiles
//   static __device__ void scan_slab(BlockSmem&, const SlabLayout&, int segs, int count,
//                                    int warp, int lane)   fp32 inclusive scan into sm.r
//                                    (may set sm.tile_prefix after a barrier of its own)
template <class Algo, class OutT, bool kInclusive>
__global__ void __launch_bounds__(kBlockThreads, kBlockMinBlocksPerSm)
    block_scan_kernel(const __half* __restrict__ in, OutT* __restrict__ out, SlabLayout sl) {
  __shared__ BlockSmem sm;
  const int tid = threadIdx.x, warp = tid / kWarpSize, lane = tid % kWarpSize;
  Algo::init(sm, sl, tid);
  if (blockIdx.x >= sl.items) return;
  // Two register buffers, used alternately: `cur` is in one, `next` in the other.
  tc::Piece buf_a[kPrefetchPieces], buf_b[kPrefetchPieces];
  SlabRef cur = slab_ref(sl, blockIdx.x, 0), next;
  bool cur_fast = prefetchable(in, sl, cur), has_next = false, next_fast = false;
  if (cur_fast) prefetch_slab(buf_a, in, cur, tid);
  next = next_slab(sl, cur, has_next);
  next_fast = has_next && prefetchable(in, sl, next);
  if (next_fast) prefetch_slab(buf_b, in, next, tid);
  float carry = 0.0f;
  // One slab; `mine` holds cur's data and receives the slab after next. False when done.
  auto one_slab = [&](tc::Piece (&mine)[kPrefetchPieces]) -> bool {
    __syncthreads();  // the previous slab has been written out (and the constants are built)
    if (cur_fast) {
#pragma unroll
      for (int i = 0; i < kPrefetchPieces; ++i) reinterpret_cast<uint4*>(sm.a)[i * kBlockThreads + tid] = mine[i].v;
    } else {
      stage_slab(in + cur.g0, cur.count, sl, sm, tid);
    }
    SlabRef after;
    bool has_after = false, after_fast = false;
    if (has_next) {
      after = next_slab(sl, next, has_after);
      after_fast = has_after && prefetchable(in, sl, after);
      if (after_fast) prefetch_slab(mine, in, after, tid);  // in flight during two slabs
    }
    if (tid < kSlabTiles) sm.tile_prefix[tid] = 0.0f;
    __syncthreads();
    Algo::scan_slab(sm, sl, cur.segs, cur.count, warp, lane);
    __syncthreads();
    write_slab<OutT, kInclusive>(out + cur.g0, cur.count, sl, sm, carry, cur.slab > 0, tid);
    // The running sum of a segment walked slab by slab (same value in every thread).
    carry = cur.slab + 1 >= sl.slabs ? 0.0f : slab_inclusive(sm, cur.count - 1, carry);
    if (!has_next) return false;
    cur = next;
    cur_fast = next_fast;
    next = after;
    has_next = has_after;
    next_fast = after_fast;
    return true;
  };
  while (one_slab(buf_a) && one_slab(buf_b)) {
  }
}

// Blocks to launch for sl.items work items: exactly the blocks that are resident at once (one
// wave; a partial second wave of persistent blocks would cost up to half a wave of time),
// fewer when there is less work. Each block grid-strides over the items.
template <class Algo, class OutT>
cudaError_t launch_block_scan(const __half* in, OutT* out, const SlabLayout& sl, bool inclusive,
                              cudaStream_t stream) {
  auto* k = inclusive ? block_scan_kernel<Algo, OutT, true> : block_scan_kernel<Algo, OutT, false>;
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(k), kBlockThreads, sl.items);
  k<<<grid, kBlockThreads, 0, stream>>>(in, out, sl);
  return cudaGetLastError();
}

}  // namespace tcu::detail::scan
