#pragma once
// Step 12 — Hopper: warpgroup MMAs (wgmma) reading A and B from shared memory, filled by the
// tensor memory accelerator (TMA) and synchronised by mbarriers. sm_90a only.
//
//   block: one warpgroup (128 threads), a BM×BN = 128×128 tile of C, kStages slots of
//          BM×BK + BK×BN halves (BK = 64)
//   prologue:  thread 0: for each slot s: expect the slot's bytes on full[s], TMA A box and
//              two B boxes of k-tile s into it
//   for kt:    everyone: wait full[kt % kStages] (phase kt / kStages)
//              wgmma.fence;  for ks in 0…3, mh in 0…1:  wgmma m64n128k16 (rows 64·mh…)
//              commit;  wait_group 1  → the wgmma of k-tile kt-1 are done (this warp)
//              __syncthreads()        → … in every warp: slot (kt-1) % kStages is free
//              thread 0: TMA k-tile kt-1+kStages into that slot
//   epilogue:  wait_group 0; accumulators → C straight from registers (predicated)
//
// What changed from step 11, and why it pays on Hopper:
// - No operand goes through registers. mma.sync needs every A and B value loaded by the
//   warp (ldmatrix) for each MMA; wgmma hands the tensor cores two shared-memory descriptors
//   and the hardware reads the tiles itself, for a whole 64×128×16 product per instruction.
// - The copies cost no instructions per element. One thread describes a whole box (128×64
//   halves of A, 64×64 of B) to the TMA unit, which also does the address arithmetic, the
//   zero-fill past the matrix edges (every M, N, K works without a scalar path) and the
//   swizzle wgmma needs. The mbarrier counts the bytes in: no cp.async groups to wait for.
// - The MMAs are asynchronous: the warpgroup issues k-tile kt's eight wgmma and, while they
//   run, frees k-tile kt-1's slot and starts its next copy.
// Not yet here (the next steps' subjects): a producer warp that only copies, several
// consumer warpgroups, 128×256 tiles, clusters with TMA multicast, a persistent schedule.
//
// The shared-memory layouts (PTX ISA, "Shared Memory Matrix Layout" and "Matrix Descriptor
// Format"; 128-byte swizzle everywhere: the TMA maps are made with CU_TENSOR_MAP_SWIZZLE_128B,
// and the descriptors say swizzle mode 1, so both sides agree on the XOR pattern):
//
// A slot: the TMA box is 64 (k, contiguous) × 128 (m) halves. Row m of the box is 64 halves
//   = 128 bytes, stored at m·128 bytes, its eight 16-byte chunks permuted by the swizzle
//   (chunk c of row m at chunk c ^ (m % 8)). That is wgmma's K-major layout with 128-byte
//   swizzle: a "swizzle atom" is 8 rows × 128 bytes = 1024 bytes, atoms follow each other
//   along M. Descriptor: stride byte offset (between 8-row groups along M) = 1024; the leading
//   byte offset is not used by swizzled K-major layouts (set to 16, i.e. 1). One wgmma reads
//   64 rows × 16 k: the m-half mh starts 64·128 = 8192 bytes in, the k-step ks 16 halves =
//   32 bytes into the row. The start address moves by 32 bytes inside a 128-byte row; the
//   hardware applies the swizzle to the full address, so the atoms stay 1024-aligned and the
//   base offset stays 0 (every slot starts on a 1024-byte boundary).
// B slot: B is row-major K×N, i.e. N-major ("transposed" for wgmma: imm-trans-b = 1). Each
//   TMA box is 64 (n, contiguous) × 64 (k) halves: row k = 128 bytes at k·128, swizzled the
//   same way; the two boxes of the 128 columns sit 64·128 = 8192 bytes apart. For N-major
//   swizzled layouts the atom is 64 n (128 bytes) × 8 k rows, and
//     leading byte offset = from one 64-wide column block to the next (along N) = 8192
//     stride byte offset  = from one group of 8 k-rows to the next (along K)    = 1024
//   The k-step ks starts 16 rows = 2048 bytes in (two atoms: 1024-aligned, base offset 0).
//   If B ever comes out wrong on the device, these two numbers are the first suspects.
#include <cuda.h>  // CUtensorMap (a type only: nothing of the driver library is linked)
#include <cuda_fp16.h>

#include <cstdint>

#include "02_gemm_variants/gemm_problem.hpp"
#include "02_gemm_variants/kernels/10_wmma_pipelined.cuh"  // block_tile_origin
#include "02_gemm_variants/kernels/hopper_ptx.cuh"

namespace tcu::gemm {

template <int BM, int BN, int BK, int kStages>
struct WgmmaTmaShape {
  static_assert(BM == 128 && BN == 128, "one warpgroup: two m64n128 accumulators (128 registers a thread)");
  static_assert(BK == 64, "a k-tile row of A is one 128-byte swizzle row");
  static_assert(kStages >= 2, "a pipeline needs at least two slots");
  static constexpr int kThreads = 128;
  static constexpr int kABytes = BM * BK * 2, kBBytes = BK * BN * 2;  // one slot
  static constexpr int kBBoxCols = 64;                                // B box: 64 n × BK k
  static constexpr int kBBoxBytes = kBBoxCols * BK * 2;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static_assert(kABytes % 1024 == 0 && kBBoxBytes % 1024 == 0, "every box starts on a swizzle atom");
  // Dynamic shared memory: the slots, 1024-aligned by hand (hence the slack).
  static constexpr int kSmemBytes = kStages * kStageBytes + 1024;
};

template <int BM, int BN, int BK, int kStages, int kGroupRows>
__global__ void __launch_bounds__(128) gemm_wgmma_tma_kernel(const __grid_constant__ CUtensorMap tma_a,
                                                             const __grid_constant__ CUtensorMap tma_b,
                                                             GemmArgs<__half> g, bool c_rows_8B) {
#if TCU_SM90A_BODY
  namespace h = hopper;
  using S = WgmmaTmaShape<BM, BN, BK, kStages>;
  extern __shared__ unsigned char smem_raw[];
  __shared__ std::uint64_t full[kStages];
  unsigned char* smem = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~static_cast<std::uintptr_t>(1023));
  auto slot_a = [&](int s) { return smem + s * S::kStageBytes; };
  auto slot_b = [&](int s) { return smem + s * S::kStageBytes + S::kABytes; };

  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
  int row0, col0;
  block_tile_origin<kGroupRows>(BM, BN, row0, col0);
  const int m = static_cast<int>(g.p.m), n = static_cast<int>(g.p.n), k = static_cast<int>(g.p.k);
  const int ktiles = static_cast<int>(ceil_div(k, BK));

  // Thread 0 is the producer: one arrival (with the byte count) and three boxes per k-tile.
  auto produce = [&](int kt) {
    const int s = kt % kStages;
    h::mbarrier_arrive_expect_tx(&full[s], S::kStageBytes);
    h::tma_load_2d(slot_a(s), &tma_a, &full[s], kt * BK, row0);
#pragma unroll
    for (int box = 0; box < BN / S::kBBoxCols; ++box)
      h::tma_load_2d(slot_b(s) + box * S::kBBoxBytes, &tma_b, &full[s], col0 + box * S::kBBoxCols, kt * BK);
  };
  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) h::mbarrier_init(&full[s], 1);
    h::fence_barrier_init();
  }
  __syncthreads();
  if (tid == 0)
    for (int kt = 0; kt < kStages && kt < ktiles; ++kt) produce(kt);

  float acc[2][64];  // m-halves 0 and 1 of the 128×128 tile (layout: hopper_ptx.cuh)
#pragma unroll
  for (int mh = 0; mh < 2; ++mh)
#pragma unroll
    for (int e = 0; e < 64; ++e) acc[mh][e] = 0.0f;

  for (int kt = 0; kt < ktiles; ++kt) {
    const int s = kt % kStages;
    h::mbarrier_wait(&full[s], static_cast<std::uint32_t>((kt / kStages) % 2));
    h::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < BK / 16; ++ks) {
      // B: k-step ks = rows 16·ks …; leading offset 8192 (next 64 columns), stride 1024 (next 8 rows).
      const std::uint64_t desc_b = h::smem_descriptor_sw128(slot_b(s) + ks * 16 * 128, S::kBBoxBytes, 1024);
#pragma unroll
      for (int mh = 0; mh < 2; ++mh) {
        // A: rows 64·mh …, k-step ks = 32 bytes into each 128-byte row; stride 1024 (next 8 rows).
        const std::uint64_t desc_a = h::smem_descriptor_sw128(slot_a(s) + mh * 64 * 128 + ks * 32, 16, 1024);
        h::wgmma_m64n128k16_f16_f32(acc[mh], desc_a, desc_b);
      }
    }
    h::wgmma_commit_group();
    h::wgmma_wait_group<1>();  // k-tile kt-1's MMAs are done in this warp …
    __syncthreads();           // … and in the other three: its slot may be overwritten
    if (tid == 0 && kt >= 1 && kt - 1 + kStages < ktiles) produce(kt - 1 + kStages);
  }
  h::wgmma_wait_group<0>();

  // Epilogue: each m-half's accumulators straight from registers to C.
#pragma unroll
  for (int mh = 0; mh < 2; ++mh)
    h::store_accumulators<BN>(acc[mh], g.c, g.ldc, m, n, row0 + 64 * mh, col0, c_rows_8B, warp, lane);
#else
  (void)tma_a; (void)tma_b; (void)g; (void)c_rows_8B;
  __trap();  // the launcher starts this kernel only where its sm_90a code runs
#endif
}

}  // namespace tcu::gemm
