// Scan256 pipelined (ours; docs/algorithms.md, "Scan256 pipelined (ours)"): for power-of-two
// segments of 16 and more the warp reads the array, not the segments: rounds of kRoundTiles
// tiles, one lane load per lane per tile (512 contiguous bytes per load instruction), the next
// round's loads in flight during this round's work (tc::run_round_pipeline). A tile is scanned
// by Scan256's R = A·U + (L·A)·1 (L masked per segment, L·A split into hi + lo or, above 2^15,
// its row sums added in fp32) or — the _shfl variant — by R = A·U plus row offsets from a
// shuffle scan of the row totals. From s = 256 on the lanes add the segment's carry in fp32 (not
// in the accumulator as Scan256N does). Work items: max(s, round) consecutive elements; any
// alignment (element-wise loads/stores where unaligned); the array's tail is padded with zeros.
#include "04_tcu_scan/kernels/scan_tiles.cuh"
#include "common/int_math.hpp"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"

namespace tcu::detail::scan {
namespace {

constexpr int kRoundTiles = 8;                         // tiles per round and warp
constexpr int kRoundElems = kRoundTiles * kTileElems;  // 2048
constexpr int kPipeWarps = 4;                          // warps per block
constexpr int kPipeMinBlocks = 7;  // 28 warps per SM (7 × 25.6 KB of shared memory): registers <= 72

struct alignas(128) PipeWarpSmem {
  __half a[kRoundTiles][kTileElems];  // the staged round
  SplitScratch s;                     // L·A (fp32), its hi/lo halves, then R
};

// The warp's walk: round `sub` of work item `item`, items grid-strided, each round by round.
struct ItemRounds {
  std::int64_t item, sub, stride, items, rounds_per_item;
  __device__ bool done() const { return item >= items; }
  __device__ void advance() {
    if (++sub == rounds_per_item) {
      sub = 0;
      item += stride;
    }
  }
  __device__ std::int64_t first_element() const { return (item * rounds_per_item + sub) * kRoundElems; }
};

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
  const int warp = tc::warp_in_block(), lane = tc::lane_id();
  PipeWarpSmem& sm = smem[warp];
  const int m = segment_size < kTileElems ? static_cast<int>(segment_size) : kTileElems;  // segment within a tile
  const int rows_per_segment = m / kTile;                                                   // 1 … 16
  tc::write_constant_tile(u, tc::ConstantMatrix::U, threadIdx.x, blockDim.x);
  tc::write_constant_tile(l, tc::ConstantMatrix::L, threadIdx.x, blockDim.x, rows_per_segment);
  __syncthreads();
  tc::FragBRow fu;  // U, kept in registers for the whole walk
  wmma::load_matrix_sync(fu, u, kTile);

  const std::int64_t total = num_segments * segment_size;
  const std::int64_t item_elems = segment_size > kRoundElems ? segment_size : kRoundElems;
  const std::int64_t items = ceil_div(total, item_elems);
  const bool vec_in = tc::aligned16(in);
  const bool long_segments = segment_size >= kTileElems;  // tiles inside one segment: a carry
  const ItemRounds walk{static_cast<std::int64_t>(blockIdx.x) * kPipeWarps + warp, 0,
                        static_cast<std::int64_t>(gridDim.x) * kPipeWarps, items, item_elems / kRoundElems};

  tc::Piece piece[kRoundTiles];
  float carry = 0.0f;
  auto load = [&](const ItemRounds& round) {
    const std::int64_t p0 = round.first_element();
#pragma unroll
    for (int k = 0; k < kRoundTiles; ++k)  // 512 contiguous bytes per load instruction
      piece[k] = tc::load_contiguous<tc::Cache::streaming>(in, total, p0 + k * kTileElems, lane, vec_in);
  };
  auto stage = [&] {
#pragma unroll
    for (int k = 0; k < kRoundTiles; ++k) tc::store_piece(sm.a[k], piece[k], lane);
  };
  auto work = [&](const ItemRounds& round) {
    const std::int64_t p0 = round.first_element();
    for (int k = 0; k < kRoundTiles; ++k) {
      const std::int64_t pt = p0 + k * kTileElems;  // first element of the tile
      if (pt >= total) break;
      if (long_segments && (pt & (segment_size - 1)) == 0) carry = 0.0f;  // a segment starts
      const int e0 = lane * tc::kPieceElems;
      float v[tc::kPieceElems];
      if constexpr (kRowCarry == RowCarry::tensor_cores) {
        tc::FragA fa, fl;
        tc::FragBRow fab, ones;
        tc::FragAcc acc, la;
        wmma::load_matrix_sync(fa, sm.a[k], kTile);
        wmma::load_matrix_sync(fab, sm.a[k], kTile);
        wmma::load_matrix_sync(fl, l, kTile);
        wmma::fill_fragment(acc, 0.0f);
        wmma::fill_fragment(la, 0.0f);
        wmma::mma_sync(acc, fa, fu, acc);  // A·U: each 16-element row scanned
        wmma::mma_sync(la, fl, fab, la);   // L·A: row i = the rows before i in its segment
        wmma::store_matrix_sync(sm.s.f, la, kTile, wmma::mem_row_major);
        __syncwarp();
        wmma::fill_fragment(ones, __float2half(1.0f));
        if (tc::mma_split_operand(acc, sm.s.f, ones, sm.s.hi, sm.s.lo, lane)) {  // + (L·A)·1, L·A as hi + lo
          __syncwarp();  // every lane has read L·A from s.f
          wmma::store_matrix_sync(sm.s.f, acc, kTile, wmma::mem_row_major);  // R
        } else {  // L·A above 2^15: + (L·A)·1 in fp32, row i += the sum of row i of L·A
          const float row_offset = row_sum_fp32(sm.s.f, lane);
          __syncwarp();
          wmma::store_matrix_sync(sm.s.f, acc, kTile, wmma::mem_row_major);  // R
          __syncwarp();
          add_to_lane_elements(sm.s.f, row_offset, lane);
        }
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
        // R0 = A·U; lanes 2i and 2i+1 hold row i. The row offsets come from a segmented
        // Hillis-Steele scan of the 16 row totals over the lane pairs: 4 shuffle steps.
        tc::FragA fa;
        tc::FragAcc acc;
        wmma::load_matrix_sync(fa, sm.a[k], kTile);
        wmma::fill_fragment(acc, 0.0f);
        wmma::mma_sync(acc, fa, fu, acc);
        wmma::store_matrix_sync(sm.s.f, acc, kTile, wmma::mem_row_major);
        __syncwarp();
        const int row = tc::piece_row(lane);
        const float4 r0 = reinterpret_cast<const float4*>(sm.s.f + e0)[0];
        const float4 r1 = reinterpret_cast<const float4*>(sm.s.f + e0)[1];
        const float r[8] = {r0.x, r0.y, r0.z, r0.w, r1.x, r1.y, r1.z, r1.w};
        float inc = sm.s.f[row * kTile + kTile - 1];  // row total, then the inclusive row prefix
#pragma unroll
        for (int d = 1; d < kTile; d *= 2) {
          const float o = __shfl_up_sync(tc::kFullMask, inc, 2 * d);
          if (d < rows_per_segment && (row & (rows_per_segment - 1)) >= d) inc += o;
        }
        float ex = __shfl_up_sync(tc::kFullMask, inc, 2);  // the rows before this one
        if ((row & (rows_per_segment - 1)) == 0) ex = 0.0f;
        if (kInclusive) {
#pragma unroll
          for (int j = 0; j < 8; ++j) v[j] = (r[j] + ex) + carry;
        } else {  // the element before, in the same row; a row's first result: the rows before
          const float before = (lane & 1) ? sm.s.f[e0 - 1] : 0.0f;
#pragma unroll
          for (int j = 0; j < 8; ++j) v[j] = ((j == 0 ? before : r[j - 1]) + ex) + carry;
        }
        if (long_segments) carry += __shfl_sync(tc::kFullMask, inc, kWarpSize - 1);  // + the tile's total
      }
      if (pt + e0 < total) tc::store8(out + pt + e0, v, total - (pt + e0));
      __syncwarp();  // s.f is the next tile's scratch
    }
  };
  tc::run_round_pipeline(walk, load, stage, work);
}

template <RowCarry kRowCarry, class OutT>
cudaError_t launch_pipelined(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                             bool inclusive, cudaStream_t stream) {
  auto* k = inclusive ? scan256_pipelined_kernel<OutT, true, kRowCarry>
                      : scan256_pipelined_kernel<OutT, false, kRowCarry>;
  const std::int64_t item_elems = segment_size > kRoundElems ? segment_size : kRoundElems;
  const std::int64_t items = ceil_div(num_segments * segment_size, item_elems);
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(k), kPipeWarps * kWarpSize,
                                          ceil_div(items, kPipeWarps));
  k<<<grid, kPipeWarps * kWarpSize, 0, stream>>>(in, out, num_segments, segment_size);
  return cudaGetLastError();
}

}  // namespace

template <class OutT>
cudaError_t launch_scan256_pipelined(const __half* in, OutT* out, std::int64_t num_segments,
                                     std::int64_t segment_size, bool inclusive, cudaStream_t stream) {
  return launch_pipelined<RowCarry::tensor_cores>(in, out, num_segments, segment_size, inclusive, stream);
}

template <class OutT>
cudaError_t launch_scan256_pipelined_shfl(const __half* in, OutT* out, std::int64_t num_segments,
                                          std::int64_t segment_size, bool inclusive, cudaStream_t stream) {
  return launch_pipelined<RowCarry::shuffles>(in, out, num_segments, segment_size, inclusive, stream);
}

template cudaError_t launch_scan256_pipelined(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_scan256_pipelined(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_scan256_pipelined_shfl(const __half*, __half*, std::int64_t, std::int64_t, bool,
                                                   cudaStream_t);
template cudaError_t launch_scan256_pipelined_shfl(const __half*, float*, std::int64_t, std::int64_t, bool,
                                                   cudaStream_t);

}  // namespace tcu::detail::scan
