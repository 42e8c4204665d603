#pragma once
// Step 8 — WMMA, naive: one warp per 16×16 tile of C, fragments loaded straight from global
// memory (the study's "tcus fp16", corrected: B goes into a matrix_b fragment — their code
// loaded both tiles into the A fragment, so their 5.59 ms timed a wrong product).
//
//   warp → C tile (row0, col0);  acc = 0 (fp32 fragment)
//   for k0 in 0, 16, …:  fa ← A[row0.., k0..] (matrix_a, row_major)
//                        fb ← B[k0.., col0..] (matrix_b, row_major)
//                        acc = fa·fb + acc                   (one HMMA.16816 pair per step)
//   C tile ← acc
//
// WMMA's rules (common/wmma_rules.cuh): load/store_matrix_sync need a 32-byte aligned pointer,
// ldm a multiple of 16 bytes, and the whole 16×16 tile inside the matrix. Where a tile breaks
// them (edges; K or N not a multiple of 8) the warp stages that tile through its own slice of
// shared memory, zero-filled — the shared-memory round trip those rules force.
#include <cuda_fp16.h>
#include <mma.h>

#include "02_gemm_variants/gemm_problem.hpp"

namespace tcu::gemm {

inline constexpr int kWmmaTile = 16;

struct WmmaDirect {  // which operands satisfy WMMA's global-memory rules (decided on the host)
  bool a = false, b = false, c = false;
};

template <int kWarps>
__global__ void gemm_wmma_naive_kernel(GemmArgs<__half> g, WmmaDirect direct) {
  using namespace nvcuda;
  static_assert(kWarps >= 1 && kWarps * 32 <= 1024, "whole warps, at most 1024 threads");
  constexpr int T = kWmmaTile;
  __shared__ __align__(32) __half stage_a[kWarps][T * T];
  __shared__ __align__(32) __half stage_b[kWarps][T * T];
  __shared__ __align__(32) float stage_c[kWarps][T * T];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const long long tile = static_cast<long long>(blockIdx.x) * kWarps + warp;
  const int tiles_n = static_cast<int>(ceil_div(g.p.n, T));
  const int row0 = static_cast<int>(tile / tiles_n) * T, col0 = static_cast<int>(tile % tiles_n) * T;
  if (row0 >= g.p.m) return;  // whole warp
  const bool rows_inside = row0 + T <= g.p.m, cols_inside = col0 + T <= g.p.n;

  // BEGIN EXERCISE 02.2 WMMA, naive: one warp per 16×16 tile of C, A and B loaded as fragments
  // HINT: A is a matrix_a fragment and B a matrix_b fragment (both row_major): the study's code
  // HINT: loaded B into a matrix_a fragment and timed a wrong product. Zero an fp32 accumulator,
  // HINT: then per 16-wide k-step load both tiles and mma_sync. Where a tile breaks WMMA's rules
  // HINT: (direct.a/direct.b false, or the tile crosses an edge), copy it zero-filled into
  // HINT: stage_a/stage_b[warp] with the 32 lanes, __syncwarp(), and load from there.
  // SIZE: 30 to 40 lines
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  const __half zero = __float2half(0.0f);
  for (int k0 = 0; k0 < g.p.k; k0 += T) {
    const bool k_inside = k0 + T <= g.p.k;
    if (direct.a && rows_inside && k_inside) {
      wmma::load_matrix_sync(fa, g.a + static_cast<std::int64_t>(row0) * g.lda + k0, static_cast<unsigned>(g.lda));
    } else {
      for (int e = lane; e < T * T; e += 32) {
        const int r = row0 + e / T, p = k0 + e % T;
        stage_a[warp][e] = (r < g.p.m && p < g.p.k) ? g.a[r * g.lda + p] : zero;
      }
      __syncwarp();
      wmma::load_matrix_sync(fa, stage_a[warp], T);
    }
    if (direct.b && cols_inside && k_inside) {
      wmma::load_matrix_sync(fb, g.b + static_cast<std::int64_t>(k0) * g.ldb + col0, static_cast<unsigned>(g.ldb));
    } else {
      for (int e = lane; e < T * T; e += 32) {
        const int p = k0 + e / T, c = col0 + e % T;
        stage_b[warp][e] = (p < g.p.k && c < g.p.n) ? g.b[p * g.ldb + c] : zero;
      }
      __syncwarp();
      wmma::load_matrix_sync(fb, stage_b[warp], T);
    }
    wmma::mma_sync(acc, fa, fb, acc);
    __syncwarp();  // every lane has read the staged tiles before the next k-step overwrites them
  }
  // STUB: wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  // STUB: wmma::fill_fragment(acc, 0.0f);
  // STUB: (void)stage_a; (void)stage_b; (void)lane;
  // END EXERCISE
  if (direct.c && rows_inside && cols_inside) {
    wmma::store_matrix_sync(g.c + static_cast<std::int64_t>(row0) * g.ldc + col0, acc, static_cast<unsigned>(g.ldc),
                            wmma::mem_row_major);
  } else {
    wmma::store_matrix_sync(stage_c[warp], acc, T, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < T * T; e += 32) {
      const int r = row0 + e / T, c = col0 + e % T;
      if (r < g.p.m && c < g.p.n) g.c[r * g.ldc + c] = stage_c[warp][e];
    }
  }
}

}  // namespace tcu::gemm
