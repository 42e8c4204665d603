// Scan256 pipelined (our extension of Dakkak et al.'s Scan256/Scan256N for power-of-two
// segments of 16 and more): the warp reads the array, not the segments. A round is kRoundTiles
// consecutive 256-element tiles; every load instruction of the warp covers 512 contiguous
// bytes (one 16-byte load per lane), and the loads of the warp's NEXT round are issued as soon
// as the current round sits in shared memory, so they are in flight while this round's MMAs,
// shared-memory round trips and stores run (the same software pipeline as chapter 03's
// Reduction16 multi-segment). Each tile is scanned by Scan256's formulation
//
//   R = A·U + (L·A)·1       (L masked per segment: a tile holds 256/s segments when s < 256)
//
// and for s >= 256 the running sum of the segment is added to R in fp32 by the lanes (not in
// the MMA accumulator as in Scan256N: no truncated additions into a large accumulator), then
// the carry becomes carry + R[255]. Results leave as 16-byte stores, 8 consecutive per lane.
//
// Work items: max(s, round) consecutive elements (a round of whole segments, or one segment
// walked round by round); warps grid-stride over the items. Any pointer alignment (unaligned
// pointers take element-wise loads/stores), any segment count; the tail of the array is padded
// with zeros in shared memory and never written.
#include "04_tcu_scan/scan_kernels.hpp"
#include "04_tcu_scan/warp_frame.cuh"

namespace tcu::scan_detail {
namespace {

constexpr int kRoundTiles = 8;                          // tiles per round and warp
constexpr int kRoundElems = kRoundTiles * kTileElems;   // 2048
constexpr int kPipeWarps = 4;                           // warps per block
constexpr int kPipeMinBlocks = 7;  // 28 warps per SM (7 × 25.6 KB of shared memory): registers <= 72

struct alignas(128) PipeWarpSmem {
  __half a[kRoundTiles][kTileElems];  // the staged round
  WarpScratch s;                      // L·A (fp32), its hi/lo halves, then R
};

// Eight input elements starting at p (a multiple of 8): one 16-byte load where the pointer is
// aligned and all eight are inside the array, else element by element, zero past the end.
__device__ __forceinline__ uint4 load8(const __half* __restrict__ in, std::int64_t total, std::int64_t p,
                                       bool vec) {
  if (vec && p + 8 <= total) return __ldcs(reinterpret_cast<const uint4*>(in + p));
  alignas(16) __half h[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) h[j] = p + j < total ? in[p + j] : __float2half(0.0f);
  return *reinterpret_cast<const uint4*>(h);
}

// How the offsets between the 16 rows of a tile are formed.
enum class RowCarry {
  tensor_cores,  // Scan256: + (L·A)·1, L masked per segment, L·A split into hi + lo (3 MMAs)
  shuffles,      // a segmented scan of the row totals over the lanes (4 shuffle steps)
};

template <class OutT, bool kInclusive, RowCarry kRowCarry>
__global__ void __launch_bounds__(kPipeWarps * kWarpSize, kPipeMinBlocks)
    scan256_pipelined_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t num_segments,
                             std::int64_t segment_size) {
  __shared__ __align__(32) __half u[kTileElems], l[kTileElems];
  __shared__ PipeWarpSmem smem[kPipeWarps];
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  PipeWarpSmem& sm = smem[warp];
  const int m = segment_size < kTileElems ? static_cast<int>(segment_size) : kTileElems;  // segment within a tile
  const int rows_per_segment = m / kTile;                                                   // 1 … 16
  for (int e = threadIdx.x; e < kTileElems; e += blockDim.x) build_u_and_masked_l(u, l, rows_per_segment, e);
  __syncthreads();
  FragB fu;  // U, kept in registers for the whole walk
  wm::load_matrix_sync(fu, u, kTile);

  const std::int64_t total = num_segments * segment_size;
  const std::int64_t item_elems = segment_size > kRoundElems ? segment_size : kRoundElems;
  const std::int64_t rounds_per_item = item_elems / kRoundElems;
  const std::int64_t items = (total + item_elems - 1) / item_elems;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * kPipeWarps;
  const bool vec_in = aligned16(in);
  const bool long_segments = segment_size >= kTileElems;  // tiles inside one segment: a carry

  // The warp's walk: round j is round (j % rounds_per_item) of item w + (j / rounds_per_item)·warps.
  std::int64_t item = static_cast<std::int64_t>(blockIdx.x) * kPipeWarps + warp, sub = 0;
  auto round_start = [&](std::int64_t it, std::int64_t sb) { return it * item_elems + sb * kRoundElems; };
  uint4 piece[kRoundTiles];
  auto load_round = [&](std::int64_t p0) {
#pragma unroll
    for (int k = 0; k < kRoundTiles; ++k)  // 512 contiguous bytes per load instruction
      piece[k] = load8(in, total, p0 + k * kTileElems + lane * 8, vec_in);
  };
  if (item < items) load_round(round_start(item, 0));
  float carry = 0.0f;
  while (item < items) {
    const std::int64_t p0 = round_start(item, sub);
#pragma unroll
    for (int k = 0; k < kRoundTiles; ++k) reinterpret_cast<uint4*>(sm.a[k])[lane] = piece[k];
    __syncwarp();
    // The next round of the walk, loaded now: in flight during this round's work.
    if (++sub == rounds_per_item) {
      sub = 0;
      item += warps;
    }
    if (item < items) load_round(round_start(item, sub));

    for (int k = 0; k < kRoundTiles; ++k) {
      const std::int64_t pt = p0 + k * kTileElems;  // first element of the tile
      if (pt >= total) break;
      if (long_segments && (pt & (segment_size - 1)) == 0) carry = 0.0f;  // a segment starts
      const int e0 = lane * 8;
      float v[8];
      if constexpr (kRowCarry == RowCarry::tensor_cores) {
        FragA fa, fl;
        FragB fab, ones;
        FragC acc, la;
        wm::load_matrix_sync(fa, sm.a[k], kTile);
        wm::load_matrix_sync(fab, sm.a[k], kTile);
        wm::load_matrix_sync(fl, l, kTile);
        wm::fill_fragment(acc, 0.0f);
        wm::fill_fragment(la, 0.0f);
        wm::mma_sync(acc, fa, fu, acc);   // A·U: each 16-element row scanned
        wm::mma_sync(la, fl, fab, la);    // L·A: row i = the rows before i in its segment
        wm::store_matrix_sync(sm.s.f, la, kTile, wm::mem_row_major);
        wm::fill_fragment(ones, __float2half(1.0f));
        mma_split_operand(acc, sm.s, ones, lane);  // + (L·A)·1, L·A as hi + lo
        __syncwarp();                               // every lane has read L·A from s.f
        wm::store_matrix_sync(sm.s.f, acc, kTile, wm::mem_row_major);  // R
        __syncwarp();
        const float4 r0 = reinterpret_cast<const float4*>(sm.s.f + e0)[0];
        const float4 r1 = reinterpret_cast<const float4*>(sm.s.f + e0)[1];
        const float r[8] = {r0.x, r0.y, r0.z, r0.w, r1.x, r1.y, r1.z, r1.w};
        if (kInclusive) {
#pragma unroll
          for (int j = 0; j < 8; ++j) v[j] = r[j] + carry;
        } else {  // shifted by one inside each segment; a segment's first result is its carry-in
          const float before = e0 == 0 ? 0.0f : sm.s.f[e0 - 1];
#pragma unroll
          for (int j = 0; j < 8; ++j) {
            const int e = e0 + j;
            const float prev = j == 0 ? before : r[j - 1];
            v[j] = (e & (m - 1)) == 0 ? (e == 0 ? carry : 0.0f) : prev + carry;
          }
        }
        if (long_segments) carry += sm.s.f[kTileElems - 1];  // the segment's running sum, in fp32
      } else {
        // R0 = A·U on the tensor cores; lanes 2i and 2i+1 hold row i's 16 results. The row
        // offsets (the totals of the earlier rows of the segment) come from a segmented
        // Hillis-Steele scan of the 16 row totals over the lane pairs: 4 shuffle steps.
        FragA fa;
        FragC acc;
        wm::load_matrix_sync(fa, sm.a[k], kTile);
        wm::fill_fragment(acc, 0.0f);
        wm::mma_sync(acc, fa, fu, acc);
        wm::store_matrix_sync(sm.s.f, acc, kTile, wm::mem_row_major);
        __syncwarp();
        const int row = lane / 2;
        const float4 r0 = reinterpret_cast<const float4*>(sm.s.f + e0)[0];
        const float4 r1 = reinterpret_cast<const float4*>(sm.s.f + e0)[1];
        const float r[8] = {r0.x, r0.y, r0.z, r0.w, r1.x, r1.y, r1.z, r1.w};
        float inc = sm.s.f[row * kTile + kTile - 1];  // row total, then the inclusive row prefix
#pragma unroll
        for (int d = 1; d < kTile; d *= 2) {
          const float o = __shfl_up_sync(0xffffffffu, inc, 2 * d);
          if (d < rows_per_segment && (row & (rows_per_segment - 1)) >= d) inc += o;
        }
        float ex = __shfl_up_sync(0xffffffffu, inc, 2);  // the rows before this one
        if ((row & (rows_per_segment - 1)) == 0) ex = 0.0f;
        if (kInclusive) {
#pragma unroll
          for (int j = 0; j < 8; ++j) v[j] = (r[j] + ex) + carry;
        } else {  // the element before, in the same row; a row's first result: the rows before
          const float before = (lane & 1) ? sm.s.f[e0 - 1] : 0.0f;
#pragma unroll
          for (int j = 0; j < 8; ++j) v[j] = ((j == 0 ? before : r[j - 1]) + ex) + carry;
        }
        if (long_segments) carry += __shfl_sync(0xffffffffu, inc, kWarpSize - 1);  // + the tile's total
      }
      if (pt + e0 < total) store8(out + pt + e0, v, total - (pt + e0));
      __syncwarp();  // s.f is the next tile's scratch
    }
    __syncwarp();  // every lane is done with the staged round before the next one lands
  }
}

template <RowCarry kRowCarry, class OutT>
void launch_pipelined(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                      bool inclusive, cudaStream_t stream) {
  auto* k = inclusive ? scan256_pipelined_kernel<OutT, true, kRowCarry>
                      : scan256_pipelined_kernel<OutT, false, kRowCarry>;
  const std::int64_t item_elems = segment_size > kRoundElems ? segment_size : kRoundElems;
  const std::int64_t items = (num_segments * segment_size + item_elems - 1) / item_elems;
  const int grid = resident_grid_size(reinterpret_cast<const void*>(k), kPipeWarps * kWarpSize,
                                      (items + kPipeWarps - 1) / kPipeWarps);
  k<<<grid, kPipeWarps * kWarpSize, 0, stream>>>(in, out, num_segments, segment_size);
}

}  // namespace

bool scan256_pipelined_supports(std::int64_t segment_size) {
  return segment_size >= kTile && (segment_size & (segment_size - 1)) == 0;
}

template <class OutT>
void launch_scan256_pipelined(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                              bool inclusive, cudaStream_t stream) {
  launch_pipelined<RowCarry::tensor_cores>(in, out, num_segments, segment_size, inclusive, stream);
}

template <class OutT>
void launch_scan256_pipelined_shfl(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                                   bool inclusive, cudaStream_t stream) {
  launch_pipelined<RowCarry::shuffles>(in, out, num_segments, segment_size, inclusive, stream);
}

template void launch_scan256_pipelined<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool,
                                               cudaStream_t);
template void launch_scan256_pipelined<float>(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);
template void launch_scan256_pipelined_shfl<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool,
                                                    cudaStream_t);
template void launch_scan256_pipelined_shfl<float>(const __half*, float*, std::int64_t, std::int64_t, bool,
                                                   cudaStream_t);

}  // namespace tcu::scan_detail
