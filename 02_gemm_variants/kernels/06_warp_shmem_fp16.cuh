#pragma once
// Step 6 — warp per 16×16 tile, fp16, shared memory (the study's "warp-shmem fp16").
// The tensor core's unit of work done by hand: one warp owns one 16×16 tile of C; each lane
// owns 8 outputs (row lane/2, columns (lane%2)*8 … +7). Every warp stages its own 16×16
// tiles of A and B in its own slice of shared memory, so only the warp has to agree on when
// they are ready: __syncwarp, not __syncthreads.
//
//   warp w of the block → C tile (tile_row, tile_col)            block = kWarps warps
//   for each k-tile:  lane loads 8 of A's 256 and 8 of B's 256 elements → as[w], bs[w]
//                     __syncwarp()
//                     part[j] = Σ_p as[w][r][p] · bs[w][p][c0+j]   (fp16, 16 products = 1 chunk)
//                     acc[j] += part[j]                           (fp32)
//                     __syncwarp()
#include <cuda_fp16.h>

#include "02_gemm_variants/gemm_problem.hpp"

namespace tcu::gemm {

inline constexpr int kWarpTile = 16;  // the 16×16 output tile of one warp (as for WMMA)

template <int kWarps>
__global__ void gemm_warp_shmem_fp16_kernel(GemmArgs<__half> g) {
  static_assert(kWarps >= 1 && kWarps * 32 <= 1024, "whole warps, at most 1024 threads");
  static_assert(kWarpTile * kWarpTile == 32 * 8, "each lane owns 8 elements of a 16x16 tile");
  __shared__ __half as[kWarps][kWarpTile][kWarpTile + 2];
  __shared__ __half bs[kWarps][kWarpTile][kWarpTile + 2];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const long long tile = static_cast<long long>(blockIdx.x) * kWarps + warp;
  const int tiles_n = static_cast<int>(ceil_div(g.p.n, kWarpTile));
  const int row0 = static_cast<int>(tile / tiles_n) * kWarpTile, col0 = static_cast<int>(tile % tiles_n) * kWarpTile;
  if (row0 >= g.p.m) return;  // a whole warp leaves together: no __syncwarp is left waiting

  const int r = lane / 2, c0 = (lane % 2) * 8;  // this lane's row and first column in the tile
  const __half zero = __float2half(0.0f);
  float acc[8] = {};
  for (int k0 = 0; k0 < g.p.k; k0 += kWarpTile) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {  // lane fills A row r, columns c0..c0+7, and B row r likewise
      const int ra = row0 + r, ka = k0 + c0 + j;
      as[warp][r][c0 + j] = (ra < g.p.m && ka < g.p.k) ? g.a[ra * g.lda + ka] : zero;
      const int kb = k0 + r, cb = col0 + c0 + j;
      bs[warp][r][c0 + j] = (kb < g.p.k && cb < g.p.n) ? g.b[kb * g.ldb + cb] : zero;
    }
    __syncwarp();
    __half part[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) part[j] = zero;
#pragma unroll
    for (int p = 0; p < kWarpTile; ++p) {
      const __half a = as[warp][r][p];
#pragma unroll
      for (int j = 0; j < 8; ++j) part[j] = __hfma(a, bs[warp][p][c0 + j], part[j]);
    }
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[j] += __half2float(part[j]);
    __syncwarp();  // the next k-tile overwrites as/bs
  }
  const int row = row0 + r;
  if (row < g.p.m)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (col0 + c0 + j < g.p.n) g.c[row * g.ldc + col0 + c0 + j] = acc[j];
}

}  // namespace tcu::gemm
