#pragma once
// Alg. 4 of Dakkak et al., the block reduction, on the block of block.cuh: every warp reduces
// its rounds to a partial, a barrier, one warp sums the partials (X·Pᵀ).
#include <cstdint>

#include "common/tensor_core/block.cuh"
#include "common/tensor_core/staging.cuh"

namespace tcu::tc {

// Alg. 4, first step, by every warp: the warp's partial of p[0 … len) (every lane returns it).
// Warp w walks the rounds w, w + kBlockWarps, … with the next round's loads in flight. Each
// round is one chain of 8 MMAs, V = Σ_k P·A_k, whose row 0 (16 column sums) the lanes add in
// fp32: a chain over the warp's whole share would drift (the tensor cores' fp32 sums truncate).
__device__ __forceinline__ float warp_range_partial(BlockSmem& sm, const __half* p, std::int64_t len) {
  const int lane = lane_id(), warp = warp_in_block();
  WarpSmem& ws = sm.warp[warp];
  FragA pa;
  wmma::load_matrix_sync(pa, sm.p, kTile);
  float column = 0.0f;  // lane c < 16: column c of V, summed over the warp's rounds
  const bool aligned = aligned16(p);
  Piece piece[kRoundTiles];
  run_round_pipeline(
      StridedRounds{warp, kBlockWarps, ceil_div(len, kRoundElems)},
      [&](const StridedRounds& r) {
#pragma unroll
        for (int k = 0; k < kRoundTiles; ++k)
          piece[k] = load_contiguous<Cache::streaming>(p, len, r.round * kRoundElems + k * kTileElems, lane, aligned);
      },
      [&] {
#pragma unroll
        for (int k = 0; k < kRoundTiles; ++k) store_piece(ws.round[k], piece[k], lane);
      },
      [&](const StridedRounds&) {
        FragAcc v;
        wmma::fill_fragment(v, 0.0f);
#pragma unroll
        for (int k = 0; k < kRoundTiles; ++k) {
          FragBRow a;
          wmma::load_matrix_sync(a, ws.round[k], kTile);
          wmma::mma_sync(v, pa, a, v);
        }
        wmma::store_matrix_sync(ws.acc, v, kTile, wmma::mem_row_major);
        __syncwarp();
        if (lane < kTile) column += ws.acc[lane];
      });
  __syncwarp();
  if (lane < kTile) ws.acc[lane] = column;
  __syncwarp();
  return row16_sum(ws.acc, lane);
}

// Alg. 4, last step, by one warp: R = X·Pᵀ with row 0 of X = the warp partials (fp32, split
// hi + lo), R[0][0] = their sum; partials that do not split are added in fp32 instead.
__device__ __forceinline__ float warp_sum_partials(BlockSmem& sm, WarpSmem& ws, int lane) {
  for (int e = lane; e < kTileElems; e += kWarpSize) ws.acc[e] = (e < kBlockWarps) ? sm.warp_total[e] : 0.0f;
  __syncwarp();
  FragBCol pt;
  wmma::load_matrix_sync(pt, sm.p, kTile);
  FragAcc r;
  wmma::fill_fragment(r, 0.0f);
  float sum;
  if (mma_split_operand(r, ws.acc, pt, ws.hi, ws.lo, lane)) {
    __syncwarp();
    wmma::store_matrix_sync(ws.acc, r, kTile, wmma::mem_row_major);
    __syncwarp();
    sum = ws.acc[0];
  } else {
    sum = 0.0f;
    for (int w = 0; w < kBlockWarps; ++w) sum += sm.warp_total[w];
  }
  __syncwarp();
  return sum;
}

// Alg. 4: the sum of p[0 … len) by the whole block (thread 0 gets it); the shared memory is
// free again on return.
__device__ __forceinline__ float block_reduce_range(BlockSmem& sm, const __half* p, std::int64_t len) {
  const int warp = warp_in_block();
  const float partial = warp_range_partial(sm, p, len);
  if (lane_id() == 0) sm.warp_total[warp] = partial;
  __syncthreads();  // the barrier the published kernels lack
  float sum = 0.0f;
  if (warp == 0) sum = warp_sum_partials(sm, sm.warp[0], lane_id());
  __syncthreads();
  return sum;
}

}  // namespace tcu::tc
