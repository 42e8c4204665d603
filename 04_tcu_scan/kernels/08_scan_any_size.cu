// Scan of segments of any size (ours; docs/algorithms.md, "Segments of any size"): scan256_pipelined's
// walk (aligned tiles of the ARRAY, rounds of 8) over an even share of WHOLE segments per warp.
// Steps 1–3 of a round: segmented_row_scan.cuh, as in chapter 03; step 4 scans each tile: R_pre =
// A_pre·U, R_post = A_post·U, element c of row r = carry_in(r) + R_pre[r][c] left of the row's
// start, R_post[r][c] from it. Exclusive: shifted by one.
#include <algorithm>

#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"
#include "common/tensor_core/segmented_row_scan.cuh"

namespace tcu::detail::scan {
using namespace tc;  // the shared tensor-core vocabulary: kTile, Piece, cut_round, …
template <class OutT>  // 01_scan16.cu
cudaError_t launch_scan16(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                          bool inclusive, cudaStream_t stream);
namespace {

constexpr int kRoundTiles = kRowScanTiles;       // 8 tiles per round and warp
constexpr int kAnyWarps = 4, kAnyMinBlocks = 4;  // 4 × 4 warps per SM (shared memory: 44 KB a block)

struct alignas(128) AnyWarpSmem {
  __half post[kRoundTiles][kTileElems];  // the staged round (A_post after the cut)
  __half pre[kRoundTiles][kTileElems];   // A_pre
  float r_pre[kTileElems];               // V (step 2), then A_pre·U of a tile
  float r_post[kTileElems];              // A_post·U of a tile
  float carry_in[kRoundTiles * kTile];   // of the round's 128 rows
};

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kAnyWarps * kWarpSize, kAnyMinBlocks)
    scan_any_size_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t num_segments,
                         std::int64_t segment_size) {
  __shared__ __align__(32) __half u[kTileElems];
  __shared__ __align__(32) __half e_window[kEWindowRows * kTile];
  __shared__ AnyWarpSmem smem[kAnyWarps];
  const int warp = warp_in_block(), lane = lane_id();
  AnyWarpSmem& sm = smem[warp];
  write_constant_tile(u, ConstantMatrix::U, threadIdx.x, blockDim.x);
  write_e_window(e_window, threadIdx.x, blockDim.x);
  __syncthreads();
  FragBRow fu;  // U, kept in registers for the whole walk
  wmma::load_matrix_sync(fu, u, kTile);

  const WarpShare share = warp_segment_share(num_segments, segment_size,  // whole segments
                                             static_cast<std::int64_t>(blockIdx.x) * kAnyWarps + warp,
                                             static_cast<std::int64_t>(gridDim.x) * kAnyWarps);
  if (share.first >= share.end) return;
  const unsigned s = static_cast<unsigned>(segment_size), step = kTileElems % s;  // step: a row's offset one tile later
  const bool vec_in = aligned16(in);
  const int e0 = lane * kPieceElems, c0 = piece_col(lane), row = piece_row(lane);

  Piece piece[kRoundTiles];
  float carry = 0.0f;
  auto load = [&](const StridedRounds& w) {
#pragma unroll
    for (int k = 0; k < kRoundTiles; ++k) {  // 512 contiguous bytes per load instruction
      const PieceSource src = share_piece_source(share, (w.round + k) * kTileElems + e0);
      piece[k] = src.valid <= 0 ? zero_piece() : load_piece<Cache::streaming>(in + src.offset, src.valid, vec_in);
    }
  };
  auto stage = [&] {
#pragma unroll
    for (int k = 0; k < kRoundTiles; ++k) store_piece(sm.post[k], piece[k], lane);
  };
  auto work = [&](const StridedRounds& w) {
    const RowCursor at = row_cursor(w.round * kTileElems, segment_size);  // the round's first row
    unsigned rem = row_cursor_after(at, kTile * row, s).rem;                // the lane's row, tile 0
    cut_round<kRoundTiles>(sm.post, sm.pre, rem, step, s, lane);            // 1.
    round_row_totals<kRoundTiles>(sm.r_pre, sm.post, sm.pre, e_window);     // 2.
    carry = round_row_carries<kRoundTiles>(                                 // 3.
        sm.r_pre, row_cursor_after(at, 4 * kTile * lane, s), s, carry, lane,
        [&](int g, float carry_in, float, float, int, int, std::int64_t) { sm.carry_in[g] = carry_in; });
    __syncwarp();  // carry_in written, V read: r_pre is free
    for (int k = 0; k < kRoundTiles; ++k) {  // 4.
      const std::int64_t pt = (w.round + k) * kTileElems;  // first element of the tile
      if (pt >= share.end) break;
      FragA fa;
      FragAcc acc;
      wmma::load_matrix_sync(fa, sm.pre[k], kTile);
      wmma::fill_fragment(acc, 0.0f);
      wmma::mma_sync(acc, fa, fu, acc);  // R_pre = A_pre·U
      wmma::store_matrix_sync(sm.r_pre, acc, kTile, wmma::mem_row_major);
      wmma::load_matrix_sync(fa, sm.post[k], kTile);
      wmma::fill_fragment(acc, 0.0f);
      wmma::mma_sync(acc, fa, fu, acc);  // R_post = A_post·U
      wmma::store_matrix_sync(sm.r_post, acc, kTile, wmma::mem_row_major);
      __syncwarp();
      const int start = row_start(rem, s);
      const float cin = sm.carry_in[k * kTile + row];
      float rp[8], rq[8], v[kPieceElems];  // the lane's elements of R_pre and R_post; its results
#pragma unroll
      for (int j = 0; j < 8; ++j) rp[j] = sm.r_pre[e0 + j];
#pragma unroll
      for (int j = 0; j < 8; ++j) rq[j] = sm.r_post[e0 + j];
#pragma unroll
      for (int j = 0; j < kPieceElems; ++j) v[j] = c0 + j < start ? cin + rp[j] : rq[j];
      if (!kInclusive) {  // the element before; 0 at a segment start
        float before = __shfl_up_sync(kFullMask, v[kPieceElems - 1], 1);
        if (lane == 0) before = cin;  // row 0: the carry_in of the row = the previous element's value
#pragma unroll
        for (int j = kPieceElems - 1; j >= 0; --j) v[j] = c0 + j == start ? 0.0f : (j == 0 ? before : v[j - 1]);
      }
      const std::int64_t p = pt + e0;
      if (p >= share.first && p + kPieceElems <= share.end) {
        store8(out + p, v, kPieceElems);
      } else {
#pragma unroll
        for (int j = 0; j < kPieceElems; ++j)
          if (p + j >= share.first && p + j < share.end) out[p + j] = from_float<OutT>(v[j]);
      }
      __syncwarp();  // r_pre / r_post are the next tile's scratch
      rem += step;
      if (rem >= s) rem -= s;
    }
  };
  const StridedRounds walk{share.first / kTileElems, kRoundTiles, ceil_div(share.end, std::int64_t{kTileElems})};
  run_round_pipeline(walk, load, stage, work);  // w.round: the index of a round's first tile
}

}  // namespace

template <class OutT>
cudaError_t launch_scan_any_size(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                                 bool inclusive, cudaStream_t stream) {
  // A row holds at most one segment start from 17 on; 1 … 16: a segment per row (Scan16).
  if (segment_size <= kTile) return launch_scan16(in, out, num_segments, segment_size, inclusive, stream);
  auto* k = inclusive ? scan_any_size_kernel<OutT, true> : scan_any_size_kernel<OutT, false>;
  const int grid = segment_grid_size(reinterpret_cast<const void*>(k), kAnyWarps, num_segments, segment_size);
  k<<<grid, kAnyWarps * kWarpSize, 0, stream>>>(in, out, num_segments, segment_size);
  return cudaGetLastError();
}

template cudaError_t launch_scan_any_size(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_scan_any_size(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::scan
