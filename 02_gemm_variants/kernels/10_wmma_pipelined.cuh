#pragma once
// Step 10 — WMMA, optimised: step 9 with a kStages-deep cp.async pipeline and larger warp
// tiles (64×64: 16 accumulator fragments per warp, each A/B fragment reused 4 times).
//
//   prologue:  issue cp.async for k-tiles 0 … kStages-2   (one commit group each)
//   for kt:    per 16-wide k-step: fragments of the next k-step ← shared memory, then the
//              MMAs of this one (two register sets); at k-step 0 the copies of k-tile
//              kt+kStages-1 go into the slot k-tile kt-1 freed; before the last k-step's
//              MMAs: wait for k-tile kt+1 (cp.async.wait_group kStages-2), __syncthreads()
//   epilogue:  accumulators → shared memory → C
//
// cp.async copies global → shared without passing through registers and without stalling
// the warp, so kStages-1 k-tiles are always in flight while the tensor cores work on one.
// The copies' addresses are computed once per thread (TileStream, tile_copy.cuh), and the
// block tile is 128×256 (128×128 for small problems): with 128×128 the kernel ran into L2
// bandwidth (see the README, "Tuning steps 10 and 11"). The shared memory (4 stages × 27 KB
// for 128×256×32) exceeds 48 KB: it is dynamic, and the launcher raises the kernel's limit
// with cudaFuncSetAttribute. Where rows are not 16-byte aligned (K or N not a multiple of 8)
// the same pipeline runs with scalar loads (kMode).
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <type_traits>

#include "02_gemm_variants/kernels/09_wmma_shmem.cuh"  // WmmaTileShape
#include "02_gemm_variants/kernels/tile_copy.cuh"

namespace tcu::gemm {

template <int BM, int BN, int BK, int WM, int WN, int kStages>
struct PipelinedShape : WmmaTileShape<BM, BN, BK, WM, WN> {
  static_assert(kStages >= 2, "a pipeline needs at least two slots");
  using Base = WmmaTileShape<BM, BN, BK, WM, WN>;
  static constexpr int kPipelineBytes = kStages * Base::kStageHalves * 2;
  static constexpr int kSmemBytes = kPipelineBytes > Base::kEpilogueBytes ? kPipelineBytes : Base::kEpilogueBytes;
};

// The k-tile copies of one block: TileStreams where rows are 16-byte aligned, load_tile (the
// scalar path) where they are not.
template <class S, int BM, int BN, int BK, CopyMode kMode>
struct PipelineLoader {
  TileStream<BM, BK, S::kLdA, S::kThreads, false> a;
  TileStream<BK, BN, S::kLdB, S::kThreads, true> b;
  __half* slots;
  const GemmArgs<__half>& g;
  int row0, col0;

  __device__ PipelineLoader(__half* slots_, const GemmArgs<__half>& g_, int row0_, int col0_)
      : a(g_.a, g_.lda, row0_, 0, static_cast<int>(g_.p.m), static_cast<int>(g_.p.k)),
        b(g_.b, g_.ldb, 0, col0_, static_cast<int>(g_.p.k), static_cast<int>(g_.p.n)),
        slots(slots_), g(g_), row0(row0_), col0(col0_) {}

  // Issue the copies of k-tile kt into pipeline slot `slot` (A tile, then B tile after it).
  // Called for kt = 0, 1, 2, … in order: the streams step along k by themselves. Whole::value
  // true: the caller knows k-tile kt is whole.
  template <class Whole>
  __device__ __forceinline__ void operator()(int slot, int kt, Whole) {
    __half* as = slots + slot * S::kStageHalves;
    __half* bs = as + BM * S::kLdA;
    const int k_left = static_cast<int>(g.p.k) - kt * BK;
    if constexpr (kMode == CopyMode::cp_async16) {
      if (Whole::value || k_left >= BK) {
        a.copy_next(as, g.lda);
        b.copy_next(bs, g.ldb);
      } else {
        a.copy_last(as, g.lda, k_left, g.a);
        b.copy_last(bs, g.ldb, k_left, g.b);
      }
    } else {
      const int m = static_cast<int>(g.p.m), n = static_cast<int>(g.p.n), k = static_cast<int>(g.p.k);
      load_tile<BM, BK, S::kLdA, S::kThreads, kMode>(as, g.a, g.lda, row0, kt * BK, m, k);
      load_tile<BK, BN, S::kLdB, S::kThreads, kMode>(bs, g.b, g.ldb, kt * BK, col0, k, n);
    }
  }
};

// Which C tile a block computes. Blocks are scheduled in blockIdx order, x fastest: row by
// row, one resident wave covers a few block rows but every block column — all of B. Taking
// kGroupRows block rows at a time, column by column, makes the blocks that run together
// share both their A rows and their B columns in L2.
template <int kGroupRows>
__device__ __forceinline__ void block_tile_origin(int BM, int BN, int& row0, int& col0) {
  const std::int64_t cols = gridDim.x, rows = gridDim.y;
  const std::int64_t id = blockIdx.y * cols + blockIdx.x;
  const std::int64_t group = id / (kGroupRows * cols), first = group * kGroupRows;
  const std::int64_t height = rows - first < kGroupRows ? rows - first : kGroupRows;
  const std::int64_t in_group = id - group * kGroupRows * cols;
  row0 = static_cast<int>((first + in_group % height) * BM);
  col0 = static_cast<int>((in_group / height) * BN);
}

// The k-loop skeleton of steps 10 and 11. Per k-tile the warp takes kSteps = BK/16 k-steps;
// `fetch(slot, ks, buf)` loads the fragments of k-step ks from a slot into register set buf
// (0 or 1), `mma(buf)` multiplies the set, `load(slot, ktile)` issues the copies of a k-tile.
// Software pipelining on two levels:
//   shared memory: kStages-1 k-tiles in flight (cp.async), one being read
//   registers:     the fragments of k-step ks+1 are fetched before the MMAs of k-step ks are
//                  issued, so ldmatrix latency hides behind tensor-core work — and across the
//                  k-tile boundary too: the one barrier per k-tile sits before the last
//                  k-step's MMAs, which keep the tensor cores busy while the warps wait there.
//   kt:  ks = 0:        fetch(ks 1) │ copies of k-tile kt+kStages-1 │ mma(ks 0)
//        ks = 1 … :     fetch(ks+1)                                 │ mma(ks)
//        ks = last:     wait for k-tile kt+1, barrier, fetch(kt+1, ks 0) │ mma(last)
// The barrier also proves every warp has fetched all of k-tile kt-1's slot, which the copies
// issued after it (k-tile kt+kStages-1 → slot (kt-1) % kStages) overwrite.
template <int kStages, int kSteps, class Load, class Fetch, class Mma>
__device__ __forceinline__ void run_k_pipeline(int ktiles, int whole_ktiles, Load&& load, Fetch&& fetch, Mma&& mma) {
  static_assert(kSteps >= 2 && kSteps % 2 == 0, "two register sets alternate; BK = 32 or 64");
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < ktiles) load(s, s, std::false_type{});
    cp_async_commit();  // empty groups too: the wait count below stays "kStages-2 newer groups"
  }
  cp_async_wait<kStages - 2>();
  __syncthreads();
  fetch(0, 0, 0);
  // One k-tile; `whole` (a compile-time tag) says the copies it issues are of a whole k-tile.
  auto k_tile = [&](int kt, auto whole) {
    const int slot = kt % kStages;
#pragma unroll
    for (int ks = 0; ks < kSteps; ++ks) {
      if (ks < kSteps - 1) {
        fetch(slot, ks + 1, (ks + 1) % 2);
      } else {
        cp_async_wait<kStages - 2>();
        __syncthreads();  // k-tile kt+1 visible to all; everyone is done with k-tile kt's slot
        if (kt + 1 < ktiles) fetch((kt + 1) % kStages, 0, 0);
      }
      if (ks == 0) {
        const int next = kt + kStages - 1;
        if (next < ktiles) load(next % kStages, next, whole);
        cp_async_commit();
      }
      mma(ks % 2);
    }
  };
  // Two loops so that the copy code of a partial last k-tile stays out of the main one.
  int kt = 0;
  for (; kt < whole_ktiles - (kStages - 1); ++kt) k_tile(kt, std::true_type{});
  for (; kt < ktiles; ++kt) k_tile(kt, std::false_type{});
  cp_async_wait<0>();
  __syncthreads();  // shared memory free for the epilogue
}

template <int BM, int BN, int BK, int WM, int WN, int kStages, int kGroupRows, CopyMode kMode>
__global__ void __launch_bounds__(WmmaTileShape<BM, BN, BK, WM, WN>::kThreads)
    gemm_wmma_pipelined_kernel(GemmArgs<__half> g, bool c_rows_16B) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  using S = PipelinedShape<BM, BN, BK, WM, WN, kStages>;
  extern __shared__ __align__(128) unsigned char smem[];
  __half* slots = reinterpret_cast<__half*>(smem);  // slot s: As at s*kStageHalves, Bs after it

  const int warp = threadIdx.x / 32;
  const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
  int row0, col0;
  block_tile_origin<kGroupRows>(BM, BN, row0, col0);
  const int k = static_cast<int>(g.p.k);

  WmmaAccumulators<S> acc;
#pragma unroll
  for (int i = 0; i < S::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < S::kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  // Two register sets of fragments: set buf of k-step ks while the other one is multiplied.
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2][S::kFragsM];
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[2][S::kFragsN];

  PipelineLoader<S, BM, BN, BK, kMode> load(slots, g, row0, col0);
  // BEGIN LEFT OUT 02.3 (the fragment loads and products of a k-step would reveal it)
  auto fetch = [&](int slot, int ks, int buf) {
    const __half* as = slots + slot * S::kStageHalves;
    const __half* bs = as + BM * S::kLdA;
#pragma unroll
    for (int i = 0; i < S::kFragsM; ++i)
      wmma::load_matrix_sync(fa[buf][i], as + (wm + i * 16) * S::kLdA + ks * 16, S::kLdA);
#pragma unroll
    for (int j = 0; j < S::kFragsN; ++j)
      wmma::load_matrix_sync(fb[buf][j], bs + ks * 16 * S::kLdB + wn + j * 16, S::kLdB);
  };
  auto mma = [&](int buf) {
#pragma unroll
    for (int i = 0; i < S::kFragsM; ++i)
#pragma unroll
      for (int j = 0; j < S::kFragsN; ++j) wmma::mma_sync(acc[i][j], fa[buf][i], fb[buf][j], acc[i][j]);
  };
  // STUB: auto fetch = [&](int, int, int) { (void)fa; (void)fb; (void)wm; (void)wn; };
  // STUB: auto mma = [&](int) {};
  // END LEFT OUT
  const int whole_ktiles = kMode == CopyMode::cp_async16 ? k / BK : 0;
  run_k_pipeline<kStages, BK / 16>(static_cast<int>(ceil_div(k, BK)), whole_ktiles, load, fetch, mma);

  float* cs = reinterpret_cast<float*>(smem);  // the pipeline is drained: reuse its shared memory
  wmma_store_accumulators<S>(cs, wm, wn, acc);
  __syncthreads();
  store_tile_from_smem<BM, BN, S::kLdC, S::kThreads>(cs, g, row0, col0, c_rows_16B);
#else
  (void)g; (void)c_rows_16B;
  __trap();  // the launcher refuses GPUs below sm_80
#endif
}

}  // namespace tcu::gemm
