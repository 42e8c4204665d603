// Scan of segments of any size (ours; docs/algorithms.md, "Segments of any size"): the walk of
// scan256_pipelined (aligned tiles of the ARRAY, rounds of 8 tiles with the next round's loads
// in flight) for sizes that are not powers of two, so segment starts fall anywhere in a row.
// Steps 1–3 of a round are segmented_row_scan.cuh's (shared with chapter 03); step 4 scans:
// R_pre = A_pre·U, R_post = A_post·U, and element c of row r = carry_in(r) + R_pre[r][c] left of
// the row's start b, R_post[r][c] from b on. Exclusive: shifted by one (0 at a start). Each warp
// takes an even share of whole segments and walks the aligned tiles that cover them; what lies
// outside its share is neither loaded (whole lane loads) nor written. Sizes >= 17.
#include <algorithm>

#include "common/int_math.hpp"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"
#include "common/tensor_core/segmented_row_scan.cuh"

namespace tcu::detail::scan {

// Segments of 1 … 16 go to Scan16 (01_scan16.cu).
template <class OutT>
cudaError_t launch_scan16(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                          bool inclusive, cudaStream_t stream);

namespace {

namespace wmma = nvcuda::wmma;
using tc::kTile;
using tc::kTileElems;
using tc::kWarpSize;

constexpr int kRoundTiles = tc::kRowScanTiles;  // 8 tiles per round and warp
constexpr int kAnyWarps = 4;                    // warps per block
constexpr int kAnyMinBlocks = 4;                // 4 × 4 warps per SM (shared memory: 44 KB a block)
constexpr std::int64_t kMinShare = 4096;        // elements: fewer warps than that many per warp

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
  __shared__ __align__(32) __half e_window[tc::kEWindowRows * kTile];
  __shared__ AnyWarpSmem smem[kAnyWarps];
  const int warp = tc::warp_in_block(), lane = tc::lane_id();
  AnyWarpSmem& sm = smem[warp];
  tc::write_constant_tile(u, tc::ConstantMatrix::U, threadIdx.x, blockDim.x);
  tc::write_e_window(e_window, threadIdx.x, blockDim.x);
  __syncthreads();
  tc::FragBRow fu;  // U, kept in registers for the whole walk
  wmma::load_matrix_sync(fu, u, kTile);

  // The warp's share: whole segments, elements [i0, i1).
  const tc::WarpShare share =
      tc::warp_segment_share(num_segments, segment_size, static_cast<std::int64_t>(blockIdx.x) * kAnyWarps + warp,
                             static_cast<std::int64_t>(gridDim.x) * kAnyWarps);
  if (share.first >= share.end) return;
  const std::int64_t i0 = share.first, i1 = share.end;
  const unsigned s = static_cast<unsigned>(segment_size);
  const unsigned step = static_cast<unsigned>(kTileElems) % s;  // a row's offset one tile later
  const bool vec_in = tc::aligned16(in);
  const int e0 = lane * tc::kPieceElems, c0 = tc::piece_col(lane), row = tc::piece_row(lane);

  tc::Piece piece[kRoundTiles];
  float carry = 0.0f;
  auto load = [&](const tc::StridedRounds& w) {
#pragma unroll
    for (int k = 0; k < kRoundTiles; ++k) {  // 512 contiguous bytes per load instruction
      const tc::PieceSource src = tc::share_piece_source(share, (w.round + k) * kTileElems + e0);
      piece[k] = src.valid <= 0 ? tc::zero_piece()
                                : tc::load_piece<tc::Cache::streaming>(in + src.offset, src.valid, vec_in);
    }
  };
  auto stage = [&] {
#pragma unroll
    for (int k = 0; k < kRoundTiles; ++k) tc::store_piece(sm.post[k], piece[k], lane);
  };
  auto work = [&](const tc::StridedRounds& w) {
    const tc::RowCursor at = tc::row_cursor(w.round * kTileElems, segment_size);  // the round's first row
    unsigned rem = tc::row_cursor_after(at, kTile * row, s).rem;                      // the lane's row, tile 0
    tc::cut_round<kRoundTiles>(sm.post, sm.pre, rem, step, s, lane);                  // 1.
    tc::round_row_totals<kRoundTiles>(sm.r_pre, sm.post, sm.pre, e_window);           // 2.
    carry = tc::round_row_carries<kRoundTiles>(                                       // 3.
        sm.r_pre, tc::row_cursor_after(at, 4 * kTile * lane, s), s, carry, lane,
        [&](int g, float carry_in, float, float, int, int, std::int64_t) { sm.carry_in[g] = carry_in; });
    __syncwarp();  // carry_in written, V read: r_pre is free
    for (int k = 0; k < kRoundTiles; ++k) {  // 4.
      const std::int64_t pt = (w.round + k) * kTileElems;  // first element of the tile
      if (pt >= i1) break;
      tc::FragA fa;
      tc::FragAcc acc;
      wmma::load_matrix_sync(fa, sm.pre[k], kTile);
      wmma::fill_fragment(acc, 0.0f);
      wmma::mma_sync(acc, fa, fu, acc);  // R_pre = A_pre·U
      wmma::store_matrix_sync(sm.r_pre, acc, kTile, wmma::mem_row_major);
      wmma::load_matrix_sync(fa, sm.post[k], kTile);
      wmma::fill_fragment(acc, 0.0f);
      wmma::mma_sync(acc, fa, fu, acc);  // R_post = A_post·U
      wmma::store_matrix_sync(sm.r_post, acc, kTile, wmma::mem_row_major);
      __syncwarp();
      const int start = tc::row_start(rem, s);
      const float cin = sm.carry_in[k * kTile + row];
      const float4 p0 = reinterpret_cast<const float4*>(sm.r_pre + e0)[0];
      const float4 p1 = reinterpret_cast<const float4*>(sm.r_pre + e0)[1];
      const float4 q0 = reinterpret_cast<const float4*>(sm.r_post + e0)[0];
      const float4 q1 = reinterpret_cast<const float4*>(sm.r_post + e0)[1];
      const float rp[8] = {p0.x, p0.y, p0.z, p0.w, p1.x, p1.y, p1.z, p1.w};
      const float rq[8] = {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w};
      float v[tc::kPieceElems];
#pragma unroll
      for (int j = 0; j < tc::kPieceElems; ++j) v[j] = c0 + j < start ? cin + rp[j] : rq[j];
      if (!kInclusive) {  // the element before; 0 at a segment start
        float before = __shfl_up_sync(tc::kFullMask, v[tc::kPieceElems - 1], 1);
        if (lane == 0) before = cin;  // row 0: the carry_in of the row = the previous element's value
#pragma unroll
        for (int j = tc::kPieceElems - 1; j >= 0; --j) {
          const float prev = j == 0 ? before : v[j - 1];
          v[j] = c0 + j == start ? 0.0f : prev;
        }
      }
      const std::int64_t p = pt + e0;
      if (p >= i0 && p + tc::kPieceElems <= i1) {
        tc::store8(out + p, v, tc::kPieceElems);
      } else {
#pragma unroll
        for (int j = 0; j < tc::kPieceElems; ++j)
          if (p + j >= i0 && p + j < i1) out[p + j] = tc::from_float<OutT>(v[j]);
      }
      __syncwarp();  // r_pre / r_post are the next tile's scratch
      rem += step;
      if (rem >= s) rem -= s;
    }
  };
  // The warp's walk: rounds of kRoundTiles aligned tiles (w.round: the index of its first tile).
  const tc::StridedRounds walk{i0 / kTileElems, kRoundTiles, ceil_div(i1, std::int64_t{kTileElems})};
  tc::run_round_pipeline(walk, load, stage, work);
}

}  // namespace

template <class OutT>
cudaError_t launch_scan_any_size(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                                 bool inclusive, cudaStream_t stream) {
  // A row holds at most one segment start from 17 on; 1 … 16: a segment per row (Scan16).
  if (segment_size <= tc::kTile) return launch_scan16(in, out, num_segments, segment_size, inclusive, stream);
  auto* k = inclusive ? scan_any_size_kernel<OutT, true> : scan_any_size_kernel<OutT, false>;
  const std::int64_t total = num_segments * segment_size;
  const std::int64_t want_warps = std::min(num_segments, std::max<std::int64_t>(1, total / kMinShare));
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(k), kAnyWarps * kWarpSize,
                                          ceil_div(want_warps, std::int64_t{kAnyWarps}));
  k<<<grid, kAnyWarps * kWarpSize, 0, stream>>>(in, out, num_segments, segment_size);
  return cudaGetLastError();
}

template cudaError_t launch_scan_any_size(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_scan_any_size(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::scan
