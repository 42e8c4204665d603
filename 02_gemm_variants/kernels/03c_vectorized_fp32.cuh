#pragma once
// Step 3c — step 3b with 16-byte accesses: float4 loads from global memory, A stored
// transposed in shared memory, float4 reads from shared memory, float4 stores to C.
//
//   for each k-tile t:   a4 = A[row][k0+c … +3]  (one float4)  →  Ast[c+0…3][row]   (transposed)
//                        b4 = B[k0+r][col … +3] (one float4)  →  Bs[r][col … +3]
//                        __syncthreads()
//                        for p in BK:  ra = Ast[p][ty·kTM …]   (kTM/4 float4 loads)
//                                      rb = Bs[p][tx·kTN …]    (kTN/4 float4 loads)
//                                      acc[i][j] += ra[i]·rb[j]
//                        __syncthreads()
//
// Why each change:
// - One 16-byte load instead of four 4-byte ones: a quarter of the load instructions, and a
//   warp's A requests cover 16 rows × 32 bytes instead of 4 rows × 32 bytes (step 3b).
// - A transposed (Ast[k][m]): a thread's kTM values of A for one k are now consecutive, so
//   they come from shared memory as float4s like B's, and the 16 + 16 scalar shared loads per
//   k-step of step 3b become 2 + 2 vector loads. The transposition happens once, on the store.
// - Ast's rows are padded by 4 floats: the transposed stores of a warp (16 rows, two k
//   offsets 4 apart) then land 16 banks apart instead of on the same banks.
//
// Edges and alignment: a chunk of four that lies wholly inside the matrix is one float4 load
// (CopyMode::vector16, chosen by the launcher when every row of A and B starts 16-byte aligned:
// ld % 4 == 0 and an aligned base). Partial chunks at the edges, and every chunk when rows are
// misaligned (CopyMode::scalar), are read element by element and zero-filled.
#include "02_gemm_variants/gemm_problem.hpp"
#include "02_gemm_variants/kernels/tile_copy.cuh"  // CopyMode

namespace tcu::gemm {

// Four consecutive floats of a row from `from` on, of which the first `valid` (0…4) lie inside
// the matrix; the rest are zero. Nothing outside the matrix is read.
template <CopyMode kMode>
__device__ __forceinline__ float4 load_float4_zfill(const float* from, int valid) {
  if (kMode == CopyMode::vector16 && valid == 4) return *reinterpret_cast<const float4*>(from);
  float v[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) v[e] = e < valid ? from[e] : 0.0f;
  return make_float4(v[0], v[1], v[2], v[3]);
}

// Stores the first `valid` (0…4) values of v at `to`; one 16-byte store when all four are
// inside and C's rows start 16-byte aligned.
__device__ __forceinline__ void store_float4_pred(float* to, float4 v, int valid, bool c_rows_16B) {
  if (valid == 4 && c_rows_16B) {
    *reinterpret_cast<float4*>(to) = v;
    return;
  }
  const float w[4] = {v.x, v.y, v.z, v.w};
  for (int e = 0; e < valid; ++e) to[e] = w[e];
}

template <int BM, int BN, int BK, int kTM, int kTN, CopyMode kMode>
__global__ void __launch_bounds__((BM / kTM) * (BN / kTN)) gemm_vectorized_fp32_kernel(GemmArgs<float> g,
                                                                                     bool c_rows_16B) {
  constexpr int kThreads = (BM / kTM) * (BN / kTN);
  static_assert(BM % kTM == 0 && BN % kTN == 0 && kThreads <= 1024, "thread tiles divide the block tile");
  static_assert(kTM % 4 == 0 && kTN % 4 == 0 && BK % 4 == 0 && BN % 4 == 0, "whole float4s everywhere");
  static_assert((BM * BK / 4) % kThreads == 0 && (BK * BN / 4) % kThreads == 0, "equal copy work per thread");
  static_assert(kMode != CopyMode::cp_async16, "float4 loads through registers: A is transposed on the way");
  constexpr int kLdAt = BM + 4;  // padded: see the header comment
  __shared__ __align__(16) float ast[BK][kLdAt];
  __shared__ __align__(16) float bs[BK][BN];
  const int tid = static_cast<int>(threadIdx.x);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int ty = tid / (BN / kTN), tx = tid % (BN / kTN);
  const int m = static_cast<int>(g.p.m), n = static_cast<int>(g.p.n), k = static_cast<int>(g.p.k);

  float acc[kTM][kTN] = {};
  for (int k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
    for (int it = 0; it < BM * BK / 4 / kThreads; ++it) {
      const int e = it * kThreads + tid, r = e / (BK / 4), c = (e % (BK / 4)) * 4;
      const int valid = row0 + r < m ? valid_in_chunk(k0 + c, k, 4) : 0;
      const float4 v = load_float4_zfill<kMode>(g.a + (row0 + r) * g.lda + k0 + c, valid);
      ast[c + 0][r] = v.x;
      ast[c + 1][r] = v.y;
      ast[c + 2][r] = v.z;
      ast[c + 3][r] = v.w;
    }
#pragma unroll
    for (int it = 0; it < BK * BN / 4 / kThreads; ++it) {
      const int e = it * kThreads + tid, r = e / (BN / 4), c = (e % (BN / 4)) * 4;
      const int valid = k0 + r < k ? valid_in_chunk(col0 + c, n, 4) : 0;
      *reinterpret_cast<float4*>(&bs[r][c]) = load_float4_zfill<kMode>(g.b + (k0 + r) * g.ldb + col0 + c, valid);
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      alignas(16) float ra[kTM];  // read and written as float4s
      alignas(16) float rb[kTN];
#pragma unroll
      for (int i = 0; i < kTM; i += 4)
        *reinterpret_cast<float4*>(&ra[i]) = *reinterpret_cast<const float4*>(&ast[p][ty * kTM + i]);
#pragma unroll
      for (int j = 0; j < kTN; j += 4)
        *reinterpret_cast<float4*>(&rb[j]) = *reinterpret_cast<const float4*>(&bs[p][tx * kTN + j]);
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int row = row0 + ty * kTM + i;
    if (row >= m) continue;
#pragma unroll
    for (int j = 0; j < kTN; j += 4) {
      const int col = col0 + tx * kTN + j;
      store_float4_pred(g.c + row * g.ldc + col, make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]),
                        valid_in_chunk(col, n, 4), c_rows_16B);
    }
  }
}

}  // namespace tcu::gemm
