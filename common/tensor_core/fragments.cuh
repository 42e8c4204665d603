#pragma once
// The warp-level vocabulary of every tensor-core kernel of the tutorial: the 16×16×16 fp16
// fragment types, the warp constants and the lane/warp indices. Device code only.
//
//   FragA      matrix_a, row_major      the left operand (a tile, or P / L / E_q)
//   FragBRow   matrix_b, row_major      the right operand (U, M, 1, or a tile as B)
//   FragBCol   matrix_b, col_major      the right operand read transposed: P's memory as Pᵀ,
//                                       or a row-major tile whose rows become B's columns
//   FragAcc    accumulator, fp32        every sum of the tutorial accumulates in fp32 ...
//   FragAccHalf accumulator, fp16       ... except the accuracy study's fp16 replica
#include <cuda_fp16.h>
#include <mma.h>

#include "common/tensor_core/constant_matrices.hpp"
#include "common/tensor_core/tile_geometry.hpp"  // kWarpSize

namespace tcu::tc {

namespace wmma = nvcuda::wmma;

inline constexpr unsigned kFullMask = 0xffffffffu;

using FragA = wmma::fragment<wmma::matrix_a, kTile, kTile, kTile, __half, wmma::row_major>;
using FragBRow = wmma::fragment<wmma::matrix_b, kTile, kTile, kTile, __half, wmma::row_major>;
using FragBCol = wmma::fragment<wmma::matrix_b, kTile, kTile, kTile, __half, wmma::col_major>;
using FragAcc = wmma::fragment<wmma::accumulator, kTile, kTile, kTile, float>;
using FragAccHalf = wmma::fragment<wmma::accumulator, kTile, kTile, kTile, __half>;

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31u); }
__device__ __forceinline__ int warp_in_block() { return static_cast<int>(threadIdx.x >> 5); }

// The fp32 sum of the 16 values row[0 … 15] (a stored accumulator's row 0: lanes 0 … 15 read
// them), added by shuffles in a fixed order (deterministic); every lane returns it. The caller
// syncs the warp before `row` is written again.
__device__ __forceinline__ float row16_sum(const float* row, int lane) {
  float x = lane < kTile ? row[lane] : 0.0f;
#pragma unroll
  for (int o = kTile / 2; o >= 1; o >>= 1) x += __shfl_xor_sync(kFullMask, x, o);
  return __shfl_sync(kFullMask, x, 0);
}

}  // namespace tcu::tc
