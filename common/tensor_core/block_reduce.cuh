#pragma once
// Alg. 4 of Dakkak et al., the block reduction, on the block of block.cuh (BlockSmem or ReduceSmem):
// every warp reduces its tiles to a partial, a barrier, one warp sums the partials (X·Pᵀ).
#include <cstdint>

#include "common/tensor_core/block.cuh"
#include "common/tensor_core/staging.cuh"

namespace tcu::tc {

// Alg. 4, first step, by every warp: the warp's partial of p[0 … len) (every lane returns it).
// Step s of warp w stages T tiles, the next step's loads in flight during its MMAs: with whole
// rounds (T = 8, BlockSmem) the round s·W + w, 8 consecutive tiles (long runs per warp); with half
// rounds (ReduceSmem) tiles dealt out in turn, (s·T + j)·W + w, so that a short range keeps every
// warp busy. A round of 8 tiles is one chain V = Σ P·A_k, whose row 0 the lanes add in fp32.
template <int kT>
__device__ __forceinline__ float warp_range_partial(BlockSmemOf<kT>& sm, const __half* p, std::int64_t len) {
  static_assert(kRoundTiles % kT == 0, "a round is whole steps");
  const int lane = lane_id(), warp = warp_in_block();
  WarpSmemOf<kT>& ws = sm.warp[warp];
  FragA pa;
  wmma::load_matrix_sync(pa, sm.p, kTile);
  const int tiles = static_cast<int>(ceil_div(len, kTileElems));  // int: 2^31 tiles would be 1 TiB
  constexpr bool kWholeRounds = kT == kRoundTiles;
  constexpr int kStride = kWholeRounds ? 1 : kBlockWarps;  // from one tile of a step to the next
  const int first = kWholeRounds ? warp * kT : warp;       // the warp's first tile
  const int steps = tiles > first ? static_cast<int>(ceil_div(tiles - first, kT * kBlockWarps)) : 0;
  const auto tile = [&](const StridedRounds& s, int j) { return s.round * (kT * kBlockWarps) + first + j * kStride; };
  const bool aligned = aligned16(p);
  float column = 0.0f;  // lane c < 16: column c of V, summed over the warp's rounds
  FragAcc v;
  Piece piece[kT];
  run_round_pipeline(
      StridedRounds{0, 1, steps},
      [&](const StridedRounds& s) {
#pragma unroll
        for (int j = 0; j < kT; ++j)
          piece[j] = load_contiguous<Cache::streaming>(p, len, tile(s, j) * kTileElems, lane, aligned);
      },
      [&] {
#pragma unroll
        for (int j = 0; j < kT; ++j) store_piece(ws.round[j], piece[j], lane);
      },
      [&](const StridedRounds& s) {
        if (s.round % (kRoundTiles / kT) == 0) wmma::fill_fragment(v, 0.0f);  // a round's first step
#pragma unroll
        for (int j = 0; j < kT; ++j) {
          if (!kWholeRounds && tile(s, j) >= tiles) break;  // half rounds: no MMA past the range
          FragBRow a;
          wmma::load_matrix_sync(a, ws.round[j], kTile);
          wmma::mma_sync(v, pa, a, v);
        }
        if ((s.round + 1) % (kRoundTiles / kT) == 0 || s.round + 1 == steps) {  // the round's end
          wmma::store_matrix_sync(ws.acc, v, kTile, wmma::mem_row_major);
          __syncwarp();
          if (lane < kTile) column += ws.acc[lane];
        }
      });
  for (int o = kTile / 2; o >= 1; o >>= 1) column += __shfl_xor_sync(kFullMask, column, o);  // as row16_sum
  return __shfl_sync(kFullMask, column, 0);
}

// Alg. 4, last step, by one warp: R = X·Pᵀ with row 0 of X = the warp partials (fp32, split
// hi + lo), R[0][0] = their sum; partials that do not split are added in fp32 instead.
template <int kT>
__device__ __forceinline__ float warp_sum_partials(BlockSmemOf<kT>& sm, WarpSmemOf<kT>& ws, int lane) {
  for (int e = lane; e < kTileElems; e += kWarpSize) ws.acc[e] = (e < kBlockWarps) ? sm.warp_total[e] : 0.0f;
  __syncwarp();
  FragBCol pt;
  wmma::load_matrix_sync(pt, sm.p, kTile);
  FragAcc r;
  wmma::fill_fragment(r, 0.0f);
  float sum = 0.0f;
  if (mma_split_operand(r, ws.acc, pt, ws.hi, ws.lo, lane)) {
    __syncwarp();
    wmma::store_matrix_sync(ws.acc, r, kTile, wmma::mem_row_major);
    __syncwarp();
    sum = ws.acc[0];
  } else {
    for (int w = 0; w < kBlockWarps; ++w) sum += sm.warp_total[w];
  }
  __syncwarp();
  return sum;
}

// Alg. 4: the sum of p[0 … len) by the whole block (thread 0 gets it); shared memory free on return.
template <int kT>
__device__ __forceinline__ float block_reduce_range(BlockSmemOf<kT>& sm, const __half* p, std::int64_t len) {
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
