#pragma once
// The block level, reduction (Dakkak et al. Alg. 4), used by every block-level kernel of
// chapters 03 and 05: a block of kBlockWarps warps, its shared memory (BlockSmem), and
//
//   block_reduce_range   each warp V += P·A over its rounds (the next round's loads in
//                        flight), row 0 of V summed into the warp's partial; barrier; one warp
//                        sums the partials with X·Pᵀ (warp_sum_partials)
//
// A *block tile* is the kBlockTileElems consecutive elements a block stages at once: warp w
// owns the round of kRoundTiles tiles at w·kRoundElems (docs/algorithms.md, "Glossary").
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/int_math.hpp"
#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/staging.cuh"

namespace tcu::tc {

inline constexpr int kRoundTiles = 8;                                        // tiles a warp stages at once
inline constexpr int kRoundElems = kRoundTiles * kTileElems;             // 2048
inline constexpr int kBlockTileElems = kBlockWarps * kRoundElems;            // 16384
static_assert(kBlockWarps <= kTile, "the warp totals fit in one row of a tile");
static_assert(is_pow2(kBlockTileElems), "block tiles are a power of two");

// A warp's shared memory: the staged round and the scratch of its MMAs.
struct alignas(128) WarpSmem {
  __half round[kRoundTiles][kTileElems];  // the staged 2048 elements
  float acc[kTileElems];                  // an fp32 accumulator stored for the lanes
  __half hi[kTileElems], lo[kTileElems];  // hi/lo split of an fp32 tile (and a masked tile)
};

struct alignas(128) BlockSmem {
  WarpSmem warp[kBlockWarps];
  __half p[kTileElems];      // the constant P (row 0 ones); as FragBCol it is Pᵀ
  __half u[kTileElems];      // the constant U (upper triangle with the diagonal)
  __half mask[kTileElems];   // Alg. 7's scan matrix of the warp totals, built per block tile
  float warp_total[kBlockWarps];
  float warp_carry[kBlockWarps];  // exclusive, within the block tile (flagged)
  int warp_head[kBlockWarps];     // the warp's range holds a segment start
  int warp_carry_head[kBlockWarps];
  float block_total;
  int block_head;
  float block_carry;  // carry into the block tile (from its caller)
  long long ticket, next_ticket;
};

// P and U into shared memory (whole block), before the first __syncthreads().
__device__ __forceinline__ void write_block_constants(BlockSmem& sm) {
  write_constant_tile(sm.p, ConstantMatrix::P, threadIdx.x, blockDim.x);
  write_constant_tile(sm.u, ConstantMatrix::U, threadIdx.x, blockDim.x);
}

inline constexpr std::size_t kBlockSmemBytes = sizeof(BlockSmem);

// The block's shared memory, inside a kernel launched with kBlockSmemBytes of dynamic memory.
__device__ __forceinline__ BlockSmem& block_smem() {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  return *reinterpret_cast<BlockSmem*>(smem_raw);
}

// Allows `kernel` its dynamic shared memory (once per kernel and process is enough; repeated
// calls are cheap and harmless).
template <class Kernel>
cudaError_t allow_block_smem(Kernel* kernel) {
  return cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(kBlockSmemBytes));
}

// ---- Alg. 4: block reduction ----------------------------------------------------------------

// Alg. 4, last step: one warp sums the block's kBlockWarps warp partials on the tensor cores,
// R = X·Pᵀ with X's row 0 = the partials (fp32, so X splits into hi + lo); R[0][0] is the sum.
// Partials above 2^15 do not split: then the same sum in fp32 on the CUDA cores.
__device__ __forceinline__ float warp_sum_partials(BlockSmem& sm, WarpSmem& ws, int lane) {
  for (int e = lane; e < kTileElems; e += kWarpSize)
    ws.acc[e] = (e < kBlockWarps) ? sm.warp_total[e] : 0.0f;
  __syncwarp();
  FragBCol pt;
  wmma::load_matrix_sync(pt, sm.p, kTile);  // P's memory read col-major is Pᵀ
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

// Alg. 4, first step, by every warp: the warp's partial of p[0 … len). Warp w walks the rounds
// w, w + kBlockWarps, … of the range, the next round's loads in flight (run_round_pipeline),
// and accumulates V += P·A for every tile (V's row 0: 16 column sums). Every lane returns it.
__device__ __forceinline__ float warp_range_partial(BlockSmem& sm, const __half* p, std::int64_t len) {
  const int lane = lane_id(), warp = warp_in_block();
  WarpSmem& ws = sm.warp[warp];
  FragA pa;
  wmma::load_matrix_sync(pa, sm.p, kTile);
  float column = 0.0f;  // lane c < 16: column c of the warp's V, summed over its rounds in fp32
  const bool aligned = aligned16(p);
  Piece piece[kRoundTiles];
  run_round_pipeline(
      StridedRounds{warp, kBlockWarps, ceil_div(len, kRoundElems)},
      [&](const StridedRounds& r) {
#pragma unroll
        for (int k = 0; k < kRoundTiles; ++k)
          piece[k] = load_contiguous<Cache::streaming>(p, len, r.round * kRoundElems + k * kTileElems,
                                                                lane, aligned);
      },
      [&] {
#pragma unroll
        for (int k = 0; k < kRoundTiles; ++k) store_piece(ws.round[k], piece[k], lane);
      },
      [&](const StridedRounds&) {
        // Dakkak Reduction256N over the round, V = Σ_k P·A_k (row 0: 16 column sums), then the
        // column sums are added in fp32 by the lanes. A chain of 8 MMAs at most: the tensor
        // cores' fp32 additions truncate, and a chain as long as the warp's share (hundreds of
        // tiles) would drift towards zero.
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

// Alg. 4 for a whole block: the sum of p[0 … len) (thread 0 gets it); the block's shared
// memory is free again on return.
__device__ __forceinline__ float block_reduce_range(BlockSmem& sm, const __half* p, std::int64_t len) {
  const int warp = warp_in_block();
  const float partial = warp_range_partial(sm, p, len);  // each warp: its tiles' partial
  if (lane_id() == 0) sm.warp_total[warp] = partial;
  __syncthreads();  // the barrier the published kernels lack
  float sum = 0.0f;
  if (warp == 0) sum = warp_sum_partials(sm, sm.warp[0], lane_id());  // one warp: X·Pᵀ
  __syncthreads();  // the partials and the scratch are free again
  return sum;
}

}  // namespace tcu::tc
