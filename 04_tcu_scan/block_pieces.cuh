#pragma once
// The block-level frame shared by the block algorithms (scan16, scan256, scan256_block,
// matmulscan): a block stages a *piece* of up to 4096 input elements into shared memory with
// 16-byte loads, laid out as padded segments (each segment starts a 16-element row, the pad is
// zero), lets the algorithm scan the piece on tensor cores into fp32, then writes the piece
// out with 16-byte stores, shifted by one for the exclusive scan. Staging makes any pointer
// alignment and any segment size legal for WMMA (32-byte aligned tiles, ldm = 16).
//   segment_size <= 4096: a piece holds segs_per_piece whole segments, each padded to
//                         seg_stride elements (chosen by the algorithm);
//   segment_size >  4096: one block walks a segment piece by piece, carrying the running sum.
// (Chapter 03's segment_staging.cuh stages one 16x16 tile per warp; a block-level scan needs
// a whole piece with every segment padded to its own rows, hence this layout.)
#include <cuda_fp16.h>

#include <cstdint>

#include "04_tcu_scan/scan_tiles.cuh"

namespace tcu::scan_detail {

inline constexpr int kBlockWarps = 8;
inline constexpr int kBlockThreads = kBlockWarps * kWarpSize;
// 4 resident blocks per SM (shared memory allows 5): caps registers at 64 per thread, which
// without the bound reach 80-95 and leave room for only 3 blocks.
inline constexpr int kBlockMinBlocksPerSm = 4;
inline constexpr int kPiece = 4096;                    // elements staged per piece
inline constexpr int kPieceTiles = kPiece / kTileElems;  // 16
static_assert(kPiece % kTileElems == 0 && kBlockThreads >= kTileElems, "piece = whole tiles");

struct PieceLayout {
  std::int64_t num_segments = 0;
  std::int64_t segment_size = 0;
  int seg_len = 0;         // input elements of one segment inside a piece
  int seg_shift = -1;      // log2(seg_len) when it is a power of two, else -1 (fast div/mod)
  int seg_stride = 0;      // padded length of a segment in shared memory (multiple of 16)
  int segs_per_piece = 1;
  std::int64_t pieces = 1;  // pieces per segment (> 1 only for segment_size > kPiece)
  std::int64_t items = 0;   // work items: groups of segments, or whole segments walked in pieces
};

// seg_stride: the padded length the algorithm wants for segment_size <= kPiece.
inline PieceLayout make_piece_layout(std::int64_t num_segments, std::int64_t segment_size, int seg_stride) {
  PieceLayout pl;
  pl.num_segments = num_segments;
  pl.segment_size = segment_size;
  if (segment_size > kPiece) {
    pl.seg_len = pl.seg_stride = kPiece;
    pl.segs_per_piece = 1;
    pl.pieces = (segment_size + kPiece - 1) / kPiece;
    pl.items = num_segments;
  } else {
    pl.seg_len = static_cast<int>(segment_size);
    pl.seg_stride = seg_stride;
    pl.segs_per_piece = kPiece / seg_stride;
    pl.items = (num_segments + pl.segs_per_piece - 1) / pl.segs_per_piece;
  }
  pl.seg_shift = -1;
  for (int s = 0; s < 31; ++s)
    if ((1 << s) == pl.seg_len) pl.seg_shift = s;
  return pl;
}

inline int next_pow2_at_least(std::int64_t v, int lo) {
  int p = lo;
  while (p < v) p *= 2;
  return p;
}

struct alignas(128) BlockSmem {
  __half a[kPiece];                 // the staged input, padded with zeros
  float r[kPiece];                  // the algorithm's fp32 inclusive scan of the piece
  WarpScratch scratch[kBlockWarps];
  __half u[kTileElems], l[kTileElems], x[kTileElems];  // constant tiles (x: algorithm's own)
  float tile_prefix[kPieceTiles];   // added to every element of a tile (block level, Alg. 7)
};

struct SegPos {
  int seg, pos;
};
__device__ inline SegPos split_index(int q, const PieceLayout& pl) {
  if (pl.seg_shift >= 0) return {q >> pl.seg_shift, q & (pl.seg_len - 1)};
  const int s = q / pl.seg_len;
  return {s, q - s * pl.seg_len};
}

// Elements before the first 16-byte boundary of p (p is at least 2- or 4-byte aligned).
template <class T>
__device__ inline int elements_to_16b_boundary(const T* p) {
  return static_cast<int>(((16 - (reinterpret_cast<std::uintptr_t>(p) & 15)) & 15) / sizeof(T));
}

// Stage `count` elements at src (any alignment) into sm.a in the padded layout.
__device__ inline void stage_piece(const __half* __restrict__ src, int count, const PieceLayout& pl, BlockSmem& sm,
                                   int tid) {
  const bool packed = pl.seg_len == pl.seg_stride;
  if (!packed || count < kPiece) {
    uint4* a4 = reinterpret_cast<uint4*>(sm.a);
    for (int v = tid; v < kPiece / 8; v += kBlockThreads) a4[v] = make_uint4(0, 0, 0, 0);
    __syncthreads();
  }
  auto put = [&](int q, __half v) {
    const SegPos sp = split_index(q, pl);
    sm.a[sp.seg * pl.seg_stride + sp.pos] = v;
  };
  const int head = min(count, elements_to_16b_boundary(src));
  const int nvec = (count - head) / 8;
  for (int v = tid; v < nvec; v += kBlockThreads) {
    const int q0 = head + 8 * v;
    const uint4 w = __ldcs(reinterpret_cast<const uint4*>(src + q0));  // streamed: read once
    if (packed && head == 0) {
      reinterpret_cast<uint4*>(sm.a)[v] = w;
    } else {
      const __half* h = reinterpret_cast<const __half*>(&w);
#pragma unroll
      for (int e = 0; e < 8; ++e) put(q0 + e, h[e]);
    }
  }
  for (int q = tid; q < head; q += kBlockThreads) put(q, src[q]);
  for (int q = head + 8 * nvec + tid; q < count; q += kBlockThreads) put(q, src[q]);
}

// The inclusive prefix at padded index k of the piece (k = -1: the carry itself).
__device__ inline float piece_inclusive(const BlockSmem& sm, int k, float carry) {
  return k < 0 ? carry : sm.r[k] + sm.tile_prefix[k / kTileElems] + carry;
}

template <class OutT>
__device__ inline OutT to_out(float v);
template <>
__device__ inline float to_out<float>(float v) {
  return v;
}
template <>
__device__ inline __half to_out<__half>(float v) {
  return __float2half_rn(v);
}

// Write the piece: out[q] = inclusive or exclusive prefix of input element q.
template <class OutT, bool kInclusive>
__device__ inline void write_piece(OutT* __restrict__ dst, int count, const PieceLayout& pl, const BlockSmem& sm,
                                   float carry, bool continues, int tid) {
  auto value = [&](int q) -> OutT {
    const SegPos sp = split_index(q, pl);
    const int k = sp.seg * pl.seg_stride + sp.pos;
    if (kInclusive) return to_out<OutT>(piece_inclusive(sm, k, carry));
    if (sp.pos == 0) return to_out<OutT>(continues ? carry : 0.0f);  // the shift by one
    return to_out<OutT>(piece_inclusive(sm, k - 1, carry));
  };
  constexpr int kVec = 16 / sizeof(OutT);
  const int head = min(count, elements_to_16b_boundary(dst));
  const int nvec = (count - head) / kVec;
  if (kInclusive && pl.seg_len == pl.seg_stride && head == 0) {
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
        o[4 * h + 0] = to_out<OutT>((r4.x + tp) + carry);
        o[4 * h + 1] = to_out<OutT>((r4.y + tp) + carry);
        o[4 * h + 2] = to_out<OutT>((r4.z + tp) + carry);
        o[4 * h + 3] = to_out<OutT>((r4.w + tp) + carry);
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

// A piece of the block's work: input/output offset g0, `count` elements, `segs` segments.
struct PieceRef {
  std::int64_t item = 0, piece = 0, g0 = 0;
  int count = 0, segs = 0;
};
__device__ inline PieceRef piece_ref(const PieceLayout& pl, std::int64_t item, std::int64_t piece) {
  PieceRef r;
  r.item = item;
  r.piece = piece;
  const std::int64_t seg0 = item * pl.segs_per_piece;
  r.segs = static_cast<int>(min(static_cast<std::int64_t>(pl.segs_per_piece), pl.num_segments - seg0));
  r.g0 = seg0 * pl.segment_size + piece * kPiece;
  r.count = pl.pieces == 1 ? r.segs * pl.seg_len
                           : static_cast<int>(min(static_cast<std::int64_t>(kPiece), pl.segment_size - piece * kPiece));
  return r;
}

// The piece after r in this block's walk (the next piece of the segment, else the first piece
// of the block's next item); has = false when the block is done.
__device__ inline PieceRef next_piece(const PieceLayout& pl, const PieceRef& r, bool& has) {
  const bool last = r.piece + 1 >= pl.pieces;
  const std::int64_t item = last ? r.item + gridDim.x : r.item;
  has = item < pl.items;
  return has ? piece_ref(pl, item, last ? 0 : r.piece + 1) : PieceRef{};
}

// The common case (a full, packed, 16-byte aligned piece) is loaded into registers two pieces
// ahead, so that loads are in flight while earlier pieces are scanned and written: with one
// piece ahead the blocks wait for DRAM latency at every piece.
inline constexpr int kPrefetchVectors = kPiece / 8 / kBlockThreads;  // uint4 per thread and piece
__device__ inline bool prefetchable(const __half* in, const PieceLayout& pl, const PieceRef& r) {
  return pl.seg_len == pl.seg_stride && r.count == kPiece && (reinterpret_cast<std::uintptr_t>(in + r.g0) & 15) == 0;
}
__device__ inline void prefetch_piece(uint4 (&regs)[kPrefetchVectors], const __half* in, const PieceRef& r, int tid) {
  const uint4* src = reinterpret_cast<const uint4*>(in + r.g0);
#pragma unroll
  for (int i = 0; i < kPrefetchVectors; ++i) regs[i] = __ldcs(src + i * kBlockThreads + tid);
}

// The frame. Algo provides:
//   static __device__ void init(BlockSmem&, const PieceLayout&, int tid)   constant tiles
//   static __device__ void scan_piece(BlockSmem&, const PieceLayout&, int segs, int count,
//                                     int warp, int lane)   fp32 inclusive scan into sm.r
//                                     (may set sm.tile_prefix after a barrier of its own)
template <class Algo, class OutT, bool kInclusive>
__global__ void __launch_bounds__(kBlockThreads, kBlockMinBlocksPerSm) block_scan_kernel(const __half* __restrict__ in,
                                                                   OutT* __restrict__ out, PieceLayout pl) {
  __shared__ BlockSmem sm;
  const int tid = threadIdx.x, warp = tid / kWarpSize, lane = tid % kWarpSize;
  Algo::init(sm, pl, tid);
  if (blockIdx.x >= pl.items) return;
  // Two register buffers, used alternately: `cur` is in one, `next` in the other.
  uint4 buf_a[kPrefetchVectors], buf_b[kPrefetchVectors];
  PieceRef cur = piece_ref(pl, blockIdx.x, 0), next;
  bool cur_fast = prefetchable(in, pl, cur), has_next = false, next_fast = false;
  if (cur_fast) prefetch_piece(buf_a, in, cur, tid);
  next = next_piece(pl, cur, has_next);
  next_fast = has_next && prefetchable(in, pl, next);
  if (next_fast) prefetch_piece(buf_b, in, next, tid);
  float carry = 0.0f;
  // One piece; `mine` holds cur's data and receives the piece after next. False when done.
  auto one_piece = [&](uint4 (&mine)[kPrefetchVectors]) -> bool {
    __syncthreads();  // the previous piece has been written out (and the constants are built)
    if (cur_fast) {
#pragma unroll
      for (int i = 0; i < kPrefetchVectors; ++i) reinterpret_cast<uint4*>(sm.a)[i * kBlockThreads + tid] = mine[i];
    } else {
      stage_piece(in + cur.g0, cur.count, pl, sm, tid);
    }
    PieceRef after;
    bool has_after = false, after_fast = false;
    if (has_next) {
      after = next_piece(pl, next, has_after);
      after_fast = has_after && prefetchable(in, pl, after);
      if (after_fast) prefetch_piece(mine, in, after, tid);  // in flight during two pieces
    }
    if (tid < kPieceTiles) sm.tile_prefix[tid] = 0.0f;
    __syncthreads();
    Algo::scan_piece(sm, pl, cur.segs, cur.count, warp, lane);
    __syncthreads();
    write_piece<OutT, kInclusive>(out + cur.g0, cur.count, pl, sm, carry, cur.piece > 0, tid);
    // The running sum of a segment walked piece by piece (same value in every thread).
    carry = cur.piece + 1 >= pl.pieces ? 0.0f : piece_inclusive(sm, cur.count - 1, carry);
    if (!has_next) return false;
    cur = next;
    cur_fast = next_fast;
    next = after;
    has_next = has_after;
    next_fast = after_fast;
    return true;
  };
  while (one_piece(buf_a) && one_piece(buf_b)) {
  }
}

// Blocks to launch for `items` work items: exactly the blocks that are resident at once (one
// wave; a partial second wave of persistent blocks would cost up to half a wave of time),
// fewer when there is less work. Each block grid-strides over the items.
int resident_grid_size(const void* kernel, int threads, std::int64_t items);

template <class Algo, class OutT>
void launch_block_scan(const __half* in, OutT* out, const PieceLayout& pl, bool inclusive, cudaStream_t stream) {
  if (inclusive) {
    auto* k = block_scan_kernel<Algo, OutT, true>;
    k<<<resident_grid_size(reinterpret_cast<const void*>(k), kBlockThreads, pl.items), kBlockThreads, 0, stream>>>(
        in, out, pl);
  } else {
    auto* k = block_scan_kernel<Algo, OutT, false>;
    k<<<resident_grid_size(reinterpret_cast<const void*>(k), kBlockThreads, pl.items), kBlockThreads, 0, stream>>>(
        in, out, pl);
  }
}

}  // namespace tcu::scan_detail
