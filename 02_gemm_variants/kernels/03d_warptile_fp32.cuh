#pragma once
// Step 3d — warp tiling with double buffering, fp32: step 3c's block tile, but the threads of
// a warp are placed on one compact WM×WN piece of it, and the next k-tile is read from global
// memory while the current one is multiplied.
//
//   block 128×128 = 2 × 4 warps of 64×32;  warp tile = kWMIter × kWNIter sub-tiles of 32×16;
//   sub-tile = 8 × 4 lanes of 4×4 outputs:  lane (lm, ln) of warp (wm, wn) owns, in every
//   sub-tile (mi, ni), rows wm + 32·mi + 4·lm + 0…3 and columns wn + 16·ni + 4·ln + 0…3
//
//   prologue:  k-tile 0 → registers → shared buffer 0;  __syncthreads()
//   for kt:    k-tile kt+1 → registers  (global loads issued, not waited for)
//              for p in BK:  ra[mi] = Ast[buf][p][rows of sub-tile mi]   (float4 per sub-tile)
//                            rb[ni] = Bs[buf][p][cols of sub-tile ni]
//                            acc[mi][ni] += ra[mi] ⊗ rb[ni]         (4·4·4 = 64 FMAs)
//              registers → shared buffer buf^1 (A transposed);  __syncthreads()
//
// Why warp tiles: in step 3c a thread's 8×8 outputs were contiguous, so a warp's float4
// reads of Bs were 32 bytes apart (two lanes per bank group: a 2-way conflict) and its rows
// of Ast spread over 2 × 64 values. Here the 8 lanes along M read 8 consecutive float4s of
// Ast (128 bytes: one conflict-free wavefront) and the 4 lanes along N 4 consecutive float4s
// of Bs (broadcast to the 8 lanes sharing them); a thread's 64 outputs are still computed
// from 4 + 4 float4 reads per k-step. The level "warp" also makes the shape explicit: it is
// the one the tensor-core steps (9-11) use, with the lanes' 4×4 squares in place of fragments.
//
// Why double buffering: with one buffer every warp waits at the barrier for the global loads
// of the next k-tile, with nothing to do. With two, the loads of k-tile kt+1 are in flight
// (in registers, a float4 per thread and operand) during the FMAs of k-tile kt, and one
// barrier per k-tile suffices: the buffer written after the FMAs was last read before the
// previous barrier.
#include "02_gemm_variants/gemm_problem.hpp"
#include "02_gemm_variants/kernels/03c_vectorized_fp32.cuh"  // load_float4_zfill, store_float4_pred

namespace tcu::gemm {

template <int BM, int BN, int BK, int WM, int WN, int kWMIter, int kWNIter, int kTM, int kTN, CopyMode kMode>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32) gemm_warptile_fp32_kernel(GemmArgs<float> g,
                                                                                      bool c_rows_16B) {
  constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  constexpr int kSubM = WM / kWMIter, kSubN = WN / kWNIter;  // one sub-tile of a warp
  constexpr int kLanesM = kSubM / kTM, kLanesN = kSubN / kTN;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles divide the block tile");
  static_assert(WM % kWMIter == 0 && WN % kWNIter == 0 && kSubM % kTM == 0 && kSubN % kTN == 0,
                "sub-tiles divide the warp tile, lane squares divide the sub-tile");
  static_assert(kLanesM * kLanesN == 32, "the 32 lanes cover one sub-tile");
  static_assert(kTM % 4 == 0 && kTN % 4 == 0 && BK % 4 == 0 && BN % 4 == 0, "whole float4s everywhere");
  constexpr int kAChunks = BM * BK / 4 / kThreads, kBChunks = BK * BN / 4 / kThreads;  // float4s per thread
  static_assert(kAChunks * kThreads * 4 == BM * BK && kBChunks * kThreads * 4 == BK * BN, "equal copy work");
  static_assert(kMode != CopyMode::cp_async16, "float4 loads through registers: A is transposed on the way");
  constexpr int kLdAt = BM + 4;  // padded as in step 3c: conflict-free transposed stores
  __shared__ __align__(16) float ast[2][BK][kLdAt];
  __shared__ __align__(16) float bs[2][BK][BN];

  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
  const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
  const int lm = lane / kLanesN, ln = lane % kLanesN;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int m = static_cast<int>(g.p.m), n = static_cast<int>(g.p.n), k = static_cast<int>(g.p.k);

  // The staging registers of the next k-tile, and the copy each way.
  float4 a_next[kAChunks], b_next[kBChunks];
  auto fetch = [&](int k0) {  // global → registers (zero-filled edges)
#pragma unroll
    for (int it = 0; it < kAChunks; ++it) {
      const int e = it * kThreads + tid, r = e / (BK / 4), c = (e % (BK / 4)) * 4;
      const int valid = row0 + r < m ? valid_in_chunk(k0 + c, k, 4) : 0;
      a_next[it] = load_float4_zfill<kMode>(g.a + (row0 + r) * g.lda + k0 + c, valid);
    }
#pragma unroll
    for (int it = 0; it < kBChunks; ++it) {
      const int e = it * kThreads + tid, r = e / (BN / 4), c = (e % (BN / 4)) * 4;
      const int valid = k0 + r < k ? valid_in_chunk(col0 + c, n, 4) : 0;
      b_next[it] = load_float4_zfill<kMode>(g.b + (k0 + r) * g.ldb + col0 + c, valid);
    }
  };
  auto stash = [&](int buf) {  // registers → shared buffer buf, A transposed
#pragma unroll
    for (int it = 0; it < kAChunks; ++it) {
      const int e = it * kThreads + tid, r = e / (BK / 4), c = (e % (BK / 4)) * 4;
      ast[buf][c + 0][r] = a_next[it].x;
      ast[buf][c + 1][r] = a_next[it].y;
      ast[buf][c + 2][r] = a_next[it].z;
      ast[buf][c + 3][r] = a_next[it].w;
    }
#pragma unroll
    for (int it = 0; it < kBChunks; ++it) {
      const int e = it * kThreads + tid, r = e / (BN / 4), c = (e % (BN / 4)) * 4;
      *reinterpret_cast<float4*>(&bs[buf][r][c]) = b_next[it];
    }
  };

  float acc[kWMIter * kTM][kWNIter * kTN] = {};  // [mi·kTM + i][ni·kTN + j]
  const int ktiles = static_cast<int>(ceil_div(k, BK));
  fetch(0);
  stash(0);
  __syncthreads();
  for (int kt = 0; kt < ktiles; ++kt) {
    const int buf = kt % 2;
    if (kt + 1 < ktiles) fetch((kt + 1) * BK);
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      alignas(16) float ra[kWMIter * kTM];  // read as float4s
      alignas(16) float rb[kWNIter * kTN];
#pragma unroll
      for (int mi = 0; mi < kWMIter; ++mi)
#pragma unroll
        for (int i = 0; i < kTM; i += 4)
          *reinterpret_cast<float4*>(&ra[mi * kTM + i]) =
              *reinterpret_cast<const float4*>(&ast[buf][p][wm + mi * kSubM + lm * kTM + i]);
#pragma unroll
      for (int ni = 0; ni < kWNIter; ++ni)
#pragma unroll
        for (int j = 0; j < kTN; j += 4)
          *reinterpret_cast<float4*>(&rb[ni * kTN + j]) =
              *reinterpret_cast<const float4*>(&bs[buf][p][wn + ni * kSubN + ln * kTN + j]);
#pragma unroll
      for (int i = 0; i < kWMIter * kTM; ++i)
#pragma unroll
        for (int j = 0; j < kWNIter * kTN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    if (kt + 1 < ktiles) stash(buf ^ 1);
    __syncthreads();
  }

#pragma unroll
  for (int mi = 0; mi < kWMIter; ++mi)
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
      const int row = row0 + wm + mi * kSubM + lm * kTM + i;
      if (row >= m) continue;
#pragma unroll
      for (int ni = 0; ni < kWNIter; ++ni)
#pragma unroll
        for (int j = 0; j < kTN; j += 4) {
          const int col = col0 + wn + ni * kSubN + ln * kTN + j;
          const int r = mi * kTM + i, c = ni * kTN + j;
          store_float4_pred(g.c + row * g.ldc + col, make_float4(acc[r][c], acc[r][c + 1], acc[r][c + 2], acc[r][c + 3]),
                            valid_in_chunk(col, n, 4), c_rows_16B);
        }
    }
}

}  // namespace tcu::gemm
