#pragma once
// The block of Dakkak et al.'s Alg. 4 and 7 (block_reduce.cuh, block_scan.cuh): kBlockWarps warps and
// their shared memory. A block tile: kBlockTileElems elements; in a scan warp w owns the round at w·kRoundElems.
#include <cuda_runtime.h>

#include <cstddef>

#include "common/int_math.hpp"
#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/launch.hpp"

namespace tcu::tc {

inline constexpr int kRoundTiles = 8;                                // tiles of a round
inline constexpr int kRoundElems = kRoundTiles * kTileElems;         // 2048
inline constexpr int kBlockTileElems = kBlockWarps * kRoundElems;    // 16384
static_assert(kBlockWarps <= kTile, "the warp totals fit in one row of a tile");
static_assert(is_pow2(kBlockTileElems), "block tiles are a power of two");

// A warp's shared memory: the tiles it stages at once (a round) and the scratch of its MMAs.
template <int kStaged>
struct alignas(128) WarpSmemOf {
  __half round[kStaged][kTileElems];
  float acc[kTileElems];                  // an fp32 accumulator stored for the lanes
  __half hi[kTileElems], lo[kTileElems];  // hi/lo split of an fp32 tile (and a masked tile)
};
template <int kStaged>
struct alignas(128) BlockSmemOf {
  WarpSmemOf<kStaged> warp[kBlockWarps];
  __half p[kTileElems];     // the constant P (row 0 ones); read as FragBCol it is Pᵀ
  __half u[kTileElems];     // the constant U (upper triangle with the diagonal)
  __half mask[kTileElems];  // Alg. 7: the scan matrix of the warp totals
  float warp_total[kBlockWarps];  // Alg. 4: the warp partials; Alg. 7: the warp totals
  float warp_carry[kBlockWarps];  // Alg. 7: exclusive within the block tile
  int warp_head[kBlockWarps];     // the warp's round holds a segment start
  int warp_carry_head[kBlockWarps];
  float block_carry;              // the carry into the block tile
  long long ticket, next_ticket;  // work items drawn from a global counter
};
using WarpSmem = WarpSmemOf<kRoundTiles>;
using BlockSmem = BlockSmemOf<kRoundTiles>;
using ReduceSmem = BlockSmemOf<kRoundTiles / 2>;  // Alg. 4 alone: half rounds, more blocks per SM
inline constexpr std::size_t kBlockSmemBytes = sizeof(BlockSmem), kReduceSmemBytes = sizeof(ReduceSmem);

// The barrier of the block tile's kBlockWarps warps (named barrier 1): a block may hold other warps.
__device__ __forceinline__ void block_tile_sync() { asm volatile("bar.sync 1, %0;" ::"n"(kBlockThreads) : "memory"); }

// P and U into shared memory by the whole block, before its first barrier.
template <int kStaged>
__device__ __forceinline__ void write_block_constants(BlockSmemOf<kStaged>& sm) {
  write_constant_tile(sm.p, ConstantMatrix::P, threadIdx.x, blockDim.x);
  write_constant_tile(sm.u, ConstantMatrix::U, threadIdx.x, blockDim.x);
}

// BlockSmem is above the 48 KB a kernel gets without asking: dynamic shared memory, allowed per kernel.
template <class Smem = BlockSmem>
__device__ __forceinline__ Smem& block_smem() {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  return *reinterpret_cast<Smem*>(smem_raw);
}
template <class Smem = BlockSmem, class Kernel>
cudaError_t allow_block_smem(Kernel* kernel) {
  return allow_dynamic_smem(reinterpret_cast<const void*>(kernel), sizeof(Smem));
}

}  // namespace tcu::tc
