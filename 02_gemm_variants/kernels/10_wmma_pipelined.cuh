#pragma once
// Step 10 — WMMA, optimised: step 9 with a kStages-deep cp.async pipeline and larger warp
// tiles (64×64: 16 accumulator fragments per warp, each A/B fragment reused 4 times).
//
//   prologue:  issue cp.async for k-tiles 0 … kStages-2   (one commit group each)
//   for kt:    wait until k-tile kt has landed (cp.async.wait_group kStages-2); __syncthreads()
//              issue cp.async for k-tile kt+kStages-1 into the slot freed by k-tile kt-1
//              fragments ← slot kt % kStages;  HMMA on them while the copies fly
//   epilogue:  accumulators → shared memory → C
//
// cp.async copies global → shared without passing through registers and without stalling
// the warp, so kStages-1 k-tiles are always in flight while the tensor cores work on one.
// The shared memory (4 stages × 18.5 KB for 128×128×32) exceeds 48 KB: it is dynamic, and the
// launcher raises the kernel's limit with cudaFuncSetAttribute. Where rows are not 16-byte
// aligned (K or N not a multiple of 8) the same pipeline runs with scalar loads (kMode).
#include <cuda_fp16.h>
#include <mma.h>

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

// Issue the copies of k-tile kt into pipeline slot `slot` (A tile, then B tile after it).
template <class S, int BM, int BN, int BK, CopyMode kMode>
__device__ __forceinline__ void load_pipeline_slot(__half* slots, const GemmArgs<__half>& g, int slot, int kt, int row0,
                                                   int col0) {
  __half* as = slots + slot * S::kStageHalves;
  __half* bs = as + BM * S::kLdA;
  const int m = static_cast<int>(g.p.m), n = static_cast<int>(g.p.n), k = static_cast<int>(g.p.k);
  load_tile<BM, BK, S::kLdA, S::kThreads, kMode>(as, g.a, g.lda, row0, kt * BK, m, k);
  load_tile<BK, BN, S::kLdB, S::kThreads, kMode>(bs, g.b, g.ldb, kt * BK, col0, k, n);
}

// The k-loop skeleton of steps 10 and 11: `load(slot, ktile)` issues the copies of one k-tile,
// `compute(slot)` consumes one. With CopyMode::cp_async16 the copies are asynchronous; with the
// synchronous modes the same barriers make the plain stores visible in time.
template <int kStages, class Load, class Compute>
__device__ __forceinline__ void run_k_pipeline(int ktiles, Load&& load, Compute&& compute) {
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < ktiles) load(s, s);
    cp_async_commit();  // empty groups too: the wait count below stays "kStages-2 newer groups"
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    cp_async_wait<kStages - 2>();
    __syncthreads();  // k-tile kt visible to all; everyone is done with slot (kt-1) % kStages
    const int next = kt + kStages - 1;
    if (next < ktiles) load(next % kStages, next);
    cp_async_commit();
    compute(kt % kStages);
  }
  cp_async_wait<0>();
  __syncthreads();  // shared memory free for the epilogue
}

template <int BM, int BN, int BK, int WM, int WN, int kStages, CopyMode kMode>
__global__ void __launch_bounds__(WmmaTileShape<BM, BN, BK, WM, WN>::kThreads)
    gemm_wmma_pipelined_kernel(GemmArgs<__half> g, bool c_rows_16B) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  using S = PipelinedShape<BM, BN, BK, WM, WN, kStages>;
  extern __shared__ __align__(128) unsigned char smem[];
  __half* slots = reinterpret_cast<__half*>(smem);  // slot s: As at s*kStageHalves, Bs after it

  const int warp = threadIdx.x / 32;
  const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int k = static_cast<int>(g.p.k);

  WmmaAccumulators<S> acc;
#pragma unroll
  for (int i = 0; i < S::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < S::kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  auto load = [&](int slot, int kt) { load_pipeline_slot<S, BM, BN, BK, kMode>(slots, g, slot, kt, row0, col0); };
  auto compute = [&](int slot) {
    const __half* as = slots + slot * S::kStageHalves;
    wmma_warp_k_tile<S, BK>(as, as + BM * S::kLdA, wm, wn, acc);
  };
  run_k_pipeline<kStages>(static_cast<int>(ceil_div(k, BK)), load, compute);

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
