#pragma once
// The constant matrices (constant_matrices.hpp) as shared-memory tiles and as fragments.
// WMMA fragment layouts are unspecified, so a matrix whose entries depend on (row, col) is
// written to shared memory by position and loaded with load_matrix_sync; the all-ones matrix
// needs no memory (fill_fragment). Tiles are row-major, ldm 16, 32-byte aligned.
#include "common/tensor_core/fragments.cuh"

namespace tcu::tc {

__device__ __forceinline__ __half constant_half(ConstantMatrix m, int row, int col, int param = 0) {
  return __float2half(constant_entry_is_one(m, row, col, param) ? 1.0f : 0.0f);
}

// Entries [first, kTileElems) step `stride` of the tile: one thread's share when `stride`
// threads write a tile together (a warp: first = lane, stride = 32; a block: threadIdx.x, blockDim.x).
__device__ __forceinline__ void write_constant_tile(__half* tile, ConstantMatrix m, int first, int stride,
                                                    int param = 0) {
  for (int e = first; e < kTileElems; e += stride) tile[e] = constant_half(m, e / kTile, e % kTile, param);
}

// The warp writes the tile (8 entries per lane) and can load it after the barrier.
__device__ __forceinline__ void warp_write_constant_tile(__half* tile, ConstantMatrix m, int lane, int param = 0) {
  write_constant_tile(tile, m, lane, kWarpSize, param);
  __syncwarp();
}

// A fragment holding constant matrix m, built through `scratch` (a 256-half tile of this warp,
// free again on return). Pᵀ: ask for P with a FragBCol.
template <class Frag>
__device__ __forceinline__ void load_constant(Frag& frag, ConstantMatrix m, __half* scratch, int lane, int param = 0) {
  warp_write_constant_tile(scratch, m, lane, param);
  wmma::load_matrix_sync(frag, scratch, kTile);
  __syncwarp();  // every lane has loaded before the scratch is reused
}

// All 16 matrices E_q in one 32×16 "window": rows [15 − q, 31 − q) of the window are E_q, so
// one 512-half buffer serves every q (row 15 of the window is ones, the rest zeros).
inline constexpr int kEWindowRows = 2 * kTile;
__device__ __forceinline__ void write_e_window(__half* window, int first, int stride) {
  for (int e = first; e < kEWindowRows * kTile; e += stride)
    window[e] = constant_half(ConstantMatrix::E, e / kTile, e % kTile, kTile - 1);
}
__device__ __forceinline__ const __half* e_window_row(const __half* window, int q) {
  return window + (kTile - 1 - q) * kTile;
}

}  // namespace tcu::tc
