#pragma once
// Step 9 — WMMA with block tiles in padded shared memory. A block of (BM/WM)·(BN/WN) warps
// computes a BM×BN tile of C; each warp owns a WM×WN sub-tile, i.e. (WM/16)·(WN/16)
// accumulator fragments, so every A fragment it loads is used WN/16 times and every B
// fragment WM/16 times (step 8 used each once).
//
//   for each k-tile:  As[BM][BK+8] ← A,  Bs[BK][BN+8] ← B   (16-byte loads, zero-filled edges)
//                     __syncthreads()
//                     for ks in BK/16:  fa[i] ← As, fb[j] ← Bs;  acc[i][j] += fa[i]·fb[j]
//                     __syncthreads()
//   acc → shared memory (reused) → C, predicated
//
// The +8-half padding shifts each row by 16 bytes, so the 8 rows a fragment load touches
// fall in different banks; it keeps WMMA's rules (ldm a multiple of 8 halves, 32-byte
// aligned fragment pointers). The loads are synchronous: the warps wait for global memory
// every k-tile — step 10 overlaps them.
#include <cuda_fp16.h>
#include <mma.h>

#include "02_gemm_variants/kernels/tile_copy.cuh"

namespace tcu::gemm {

template <int BM, int BN, int BK, int WM, int WN>
struct WmmaTileShape {
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles divide the block tile");
  static_assert(WM % 16 == 0 && WN % 16 == 0 && BK % 16 == 0, "whole 16x16x16 fragments");
  static constexpr int kWarps = (BM / WM) * (BN / WN);
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kFragsM = WM / 16, kFragsN = WN / 16;
  static constexpr int kLdA = BK + 8, kLdB = BN + 8, kLdC = BN + 4;  // padded rows (elements)
  static constexpr int kStageHalves = BM * kLdA + BK * kLdB;
  static constexpr int kEpilogueBytes = BM * kLdC * 4;
};

template <class S>
using WmmaAccumulators = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float>[S::kFragsM][S::kFragsN];

// One k-tile for one warp (steps 9 and 10): for each 16-wide k-step, load the warp's A and B
// fragments from the padded tiles and issue kFragsM·kFragsN mma_sync.
template <class S, int BK>
__device__ __forceinline__ void wmma_warp_k_tile(const __half* as, const __half* bs, int wm, int wn,
                                                 WmmaAccumulators<S>& acc) {
  using namespace nvcuda;
  // BEGIN EXERCISE 02.3 WMMA with shared-memory block tiles (part 1 of 2: one warp's k-tile)
  // HINT: For each 16-wide k-step, load the warp's kFragsM A fragments (rows wm + 16i of as,
  // HINT: leading dimension S::kLdA) and kFragsN B fragments (columns wn + 16j of bs, S::kLdB),
  // HINT: then kFragsM·kFragsN mma_sync: every fragment loaded is used several times.
  // SIZE: 12 to 16 lines
#pragma unroll
  for (int ks = 0; ks < BK; ks += 16) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[S::kFragsM];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[S::kFragsN];
#pragma unroll
    for (int i = 0; i < S::kFragsM; ++i) wmma::load_matrix_sync(fa[i], as + (wm + i * 16) * S::kLdA + ks, S::kLdA);
#pragma unroll
    for (int j = 0; j < S::kFragsN; ++j) wmma::load_matrix_sync(fb[j], bs + ks * S::kLdB + wn + j * 16, S::kLdB);
#pragma unroll
    for (int i = 0; i < S::kFragsM; ++i)
#pragma unroll
      for (int j = 0; j < S::kFragsN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
  }
  // STUB: (void)as; (void)bs; (void)wm; (void)wn; (void)acc;
  // END EXERCISE
}

// WMMA's accumulator layout is opaque: the only way to C with edges is through memory. The
// warp's fragments go to the block's C tile in shared memory (cs, leading dimension kLdC).
template <class S>
__device__ __forceinline__ void wmma_store_accumulators(float* cs, int wm, int wn, const WmmaAccumulators<S>& acc) {
#pragma unroll
  for (int i = 0; i < S::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < S::kFragsN; ++j)
      nvcuda::wmma::store_matrix_sync(cs + (wm + i * 16) * S::kLdC + wn + j * 16, acc[i][j], S::kLdC,
                                      nvcuda::wmma::mem_row_major);
}

template <int BM, int BN, int BK, int WM, int WN, CopyMode kMode>
__global__ void __launch_bounds__(WmmaTileShape<BM, BN, BK, WM, WN>::kThreads)
    gemm_wmma_shmem_kernel(GemmArgs<__half> g, bool c_rows_16B) {
  using namespace nvcuda;
  using S = WmmaTileShape<BM, BN, BK, WM, WN>;
  static_assert(kMode != CopyMode::cp_async16, "step 9 loads synchronously; step 10 is the cp.async one");
  constexpr int kBytes = S::kStageHalves * 2 > S::kEpilogueBytes ? S::kStageHalves * 2 : S::kEpilogueBytes;
  static_assert(kBytes <= 48 * 1024, "static shared memory is limited to 48 KB");
  __shared__ __align__(128) unsigned char smem[kBytes];
  __half* as = reinterpret_cast<__half*>(smem);
  __half* bs = as + BM * S::kLdA;

  const int warp = threadIdx.x / 32;
  const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int m = static_cast<int>(g.p.m), n = static_cast<int>(g.p.n), k = static_cast<int>(g.p.k);

  WmmaAccumulators<S> acc;
#pragma unroll
  for (int i = 0; i < S::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < S::kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  // BEGIN EXERCISE 02.3 WMMA with shared-memory block tiles (part 2 of 2: the k-tile loop)
  // HINT: Per BK-wide k-tile: the whole block copies A's BM×BK and B's BK×BN tiles into as and
  // HINT: bs (load_tile in tile_copy.cuh zero-fills the edges), waits for every warp, runs
  // HINT: wmma_warp_k_tile, and waits again before the next copy overwrites the tiles.
  // SIZE: 6 to 8 lines
  for (int k0 = 0; k0 < k; k0 += BK) {
    load_tile<BM, BK, S::kLdA, S::kThreads, kMode>(as, g.a, g.lda, row0, k0, m, k);
    load_tile<BK, BN, S::kLdB, S::kThreads, kMode>(bs, g.b, g.ldb, k0, col0, k, n);
    __syncthreads();
    wmma_warp_k_tile<S, BK>(as, bs, wm, wn, acc);
    __syncthreads();  // the next k-tile overwrites As and Bs
  }
  // STUB: (void)row0; (void)col0; (void)m; (void)n; (void)k; (void)wm; (void)wn;
  // END EXERCISE

  float* cs = reinterpret_cast<float*>(smem);  // the tiles are dead: reuse their shared memory
  wmma_store_accumulators<S>(cs, wm, wn, acc);
  __syncthreads();
  store_tile_from_smem<BM, BN, S::kLdC, S::kThreads>(cs, g, row0, col0, c_rows_16B);
}

}  // namespace tcu::gemm
