#pragma once
// Step 13 — Hopper, warp-specialised: a producer warpgroup that only copies, two consumer
// warpgroups that only multiply, 128×256 tiles, wgmma m64n256k16. sm_90a only.
//
//   block: three warpgroups (384 threads), a BM×BN = 128×256 tile of C, kStages slots of
//          BM×BK + BK×BN halves (BK = 64: 16 KB of A + 32 KB of B = 48 KB a slot)
//   warpgroup 0 (producer):  setmaxnreg.dec 40; thread 0 alone:
//              for kt:  wait empty[s] (not on the first round)        s = kt % kStages
//                       expect the slot's bytes on full[s]; TMA A box and four B boxes
//   warpgroups 1, 2 (consumers c = 0, 1):  setmaxnreg.inc 232
//              for kt:  wait full[s] (phase kt / kStages)
//                       wgmma.fence; for ks in 0…3: wgmma m64n256k16 (A rows 64·c …)
//                       commit; wait_group 1  → the wgmma of k-tile kt-1 are done (this warp)
//                       lane 0 of each warp: arrive on empty[(kt-1) % kStages]
//              epilogue: wait_group 0; accumulators → C straight from registers (predicated)
//
// What changed from step 12, and why it pays on Hopper:
// - The copies have their own warps. In step 12 the warpgroup that multiplies also waits for
//   its slot to drain (wait_group + __syncthreads) before thread 0 may start the next copy,
//   so every k-tile the tensor cores idle through a block-wide barrier. Here the producer
//   waits on "empty" mbarriers instead and the consumers never meet at a barrier: each
//   consumer warp says "slot free" (one arrival) once its wgmma reading the slot are done, and
//   goes on to the next full slot. The two consumer warpgroups run independently of each other.
// - Larger tiles: 128×256 per block (two 64×256 halves) instead of 128×128. Per k-tile a block
//   reads (128 + 256)·64 halves for 2·128·256·64 FLOP: a quarter fewer bytes from L2 per FLOP
//   than 128×128 (steps 10 and 11 measured what that is worth when L2 is the limit).
//   One wgmma of 64×256×16 per k-step and warpgroup instead of two of 64×128×16: the tensor
//   cores read A 64×16 + B 16×256 halves from shared memory per 2·64·256·16 FLOP, a sixth
//   fewer bytes per FLOP than step 12's A 64×16 + B 16×128 per 2·64·128·16.
// - Registers follow the roles. 128 accumulators a thread leave no room in a block of 384
//   threads at the launch cap (65536 / 384 → 168), so the producer, which needs ~30, hands
//   its registers back (setmaxnreg.dec 40) and the consumers take them (setmaxnreg.inc 232):
//   128·40 + 2·128·232 = 64512 of the SM's 65536. setmaxnreg only acts when the kernel has a
//   cap at entry (__launch_bounds__(384, 1)) and each role is one branch of one if/else.
// - Grid order as in step 12: kGroupRows block rows at a time (block_tile_origin), so the
//   blocks running together share A's rows and B's columns in L2.
// Not here (later steps' subjects): clusters with TMA multicast, a persistent schedule that
// overlaps one tile's epilogue with the next tile's copies, an epilogue through shared memory.
//
// The shared-memory layouts: step 12's (12_wgmma_tma.cuh explains them; 128-byte swizzle, the
// TMA maps made with CU_TENSOR_MAP_SWIZZLE_128B, the descriptors with swizzle mode 1).
//
// A slot: one TMA box of 64 (k, contiguous) × 128 (m) halves, 16 KB, K-major and swizzled
//   exactly as in step 12. Consumer c reads rows 64·c … 64·c+63: its descriptor starts
//   64·128 = 8192 bytes in (step 12's m-half mh, now one per warpgroup), the k-step ks another
//   32 bytes in; stride byte offset 1024 (from one 8-row group to the next), leading byte
//   offset unused (16).
// B slot: four TMA boxes of 64 (n, contiguous) × 64 (k) halves, 8 KB each, at 0, 8192, 16384
//   and 24576 bytes: box b holds columns 64·b … 64·b+63. This is step 12's B with two more
//   column blocks: N-major (imm-trans-b = 1), 128-byte swizzle, atom = 64 n (128 bytes) × 8 k,
//     leading byte offset = from one 64-wide column block to the next (along N) = 8192
//     stride byte offset  = from one group of 8 k-rows to the next (along K)    = 1024
//   Both unchanged: the leading offset is the distance between consecutive column blocks,
//   which is one box whatever the number of boxes; an n256 wgmma simply walks four blocks of
//   that stride where n128 walked two. The k-step ks starts 16 rows = 2048 bytes into every
//   box (two atoms: 1024-aligned, base offset 0), and one descriptor at box 0 + 2048·ks
//   covers all four boxes. Both consumers use the same B descriptor.
//   If B's columns 128…255 come out wrong on the device while 0…127 are right, the leading
//   byte offset (or the box order in the slot) is the first suspect.
//
// The barriers (mbarriers in static shared memory, one pair per slot):
//   full[s]   1 arrival (the producer's arrive.expect_tx) + the slot's 48 KB of transaction
//             bytes; consumers wait for phase kt / kStages of it (parity (kt / kStages) % 2)
//   empty[s]  kConsumerWarps = 8 arrivals, one per consumer warp: wgmma.wait_group is a
//             per-warp wait, so each warp vouches only for its own wgmma; nothing assumes that
//             one warp's wait covers its warpgroup. The producer refilling the slot with
//             k-tile kt (kt ≥ kStages) waits for the release of k-tile kt - kStages, the
//             (kt / kStages - 1)-th completion of empty[s]: parity (kt / kStages - 1) % 2.
//   Neither barrier can run two phases ahead of its waiter (a slot is released only after it
//   was filled, filled only after it was released), so one parity bit suffices.
#include <cuda.h>  // CUtensorMap (a type only: nothing of the driver library is linked)
#include <cuda_fp16.h>

#include <cstdint>

#include "02_gemm_variants/gemm_problem.hpp"
#include "02_gemm_variants/kernels/10_wmma_pipelined.cuh"  // block_tile_origin
#include "02_gemm_variants/kernels/hopper_ptx.cuh"

namespace tcu::gemm {

template <int BM, int BN, int BK, int kStages, int kConsumers>
struct WgmmaWsShape {
  static_assert(BM == 64 * kConsumers, "each consumer warpgroup owns 64 rows (one m64 wgmma)");
  static_assert(BN == 256, "one m64n256 accumulator per consumer (128 registers a thread)");
  static_assert(BK == 64, "a k-tile row of A is one 128-byte swizzle row");
  static_assert(kStages >= 2, "a pipeline needs at least two slots");
  static constexpr int kThreads = 128 * (1 + kConsumers);  // producer warpgroup first
  static constexpr int kConsumerWarps = 4 * kConsumers;    // arrivals per phase of empty[s]
  static constexpr int kABytes = BM * BK * 2, kBBytes = BK * BN * 2;  // one slot
  static constexpr int kBBoxCols = 64;                                // B box: 64 n × BK k
  static constexpr int kBBoxBytes = kBBoxCols * BK * 2;
  static constexpr int kBBoxes = BN / kBBoxCols;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static_assert(kABytes % 1024 == 0 && kBBoxBytes % 1024 == 0, "every box starts on a swizzle atom");
  // Dynamic shared memory: the slots, 1024-aligned by hand (hence the slack). The barriers
  // are static: 2 · kStages · 8 bytes more.
  static constexpr int kSmemBytes = kStages * kStageBytes + 1024;
  static constexpr int kBarrierBytes = 2 * kStages * 8;
};

template <int BM, int BN, int BK, int kStages, int kGroupRows, int kConsumers, int kProducerRegs, int kConsumerRegs>
__global__ void __launch_bounds__(128 * (1 + kConsumers), 1)
    gemm_wgmma_ws_kernel(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_b,
                         GemmArgs<__half> g, bool c_rows_8B) {
#if TCU_SM90A_BODY
  namespace h = hopper;
  using S = WgmmaWsShape<BM, BN, BK, kStages, kConsumers>;
  extern __shared__ unsigned char smem_raw[];
  __shared__ std::uint64_t full[kStages], empty[kStages];
  unsigned char* smem = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~static_cast<std::uintptr_t>(1023));
  auto slot_a = [&](int s) { return smem + s * S::kStageBytes; };
  auto slot_b = [&](int s) { return smem + s * S::kStageBytes + S::kABytes; };

  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warpgroup = tid / 128;
  int row0, col0;
  block_tile_origin<kGroupRows>(BM, BN, row0, col0);
  const int ktiles = static_cast<int>(ceil_div(g.p.k, BK));

  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) {
      h::mbarrier_init(&full[s], 1);
      h::mbarrier_init(&empty[s], S::kConsumerWarps);
    }
    h::fence_barrier_init();
  }
  __syncthreads();  // the last block-wide barrier: the roles part here and never meet again

  if (warpgroup == 0) {
    // ---- producer: one thread, one arrival (with the byte count) and 1 + 4 boxes a k-tile ----
    h::setmaxnreg_dec<kProducerRegs>();
    if (tid == 0) {
      for (int kt = 0; kt < ktiles; ++kt) {
        const int s = kt % kStages;
        if (kt >= kStages) h::mbarrier_wait(&empty[s], static_cast<std::uint32_t>((kt / kStages - 1) % 2));
        h::mbarrier_arrive_expect_tx(&full[s], S::kStageBytes);
        h::tma_load_2d(slot_a(s), &tma_a, &full[s], kt * BK, row0);
#pragma unroll
        for (int box = 0; box < S::kBBoxes; ++box)
          h::tma_load_2d(slot_b(s) + box * S::kBBoxBytes, &tma_b, &full[s], col0 + box * S::kBBoxCols, kt * BK);
      }
    }
    // The other 127 threads have nothing to do, and thread 0 is done once the last copy is
    // issued: the consumers' waits on full[] keep the block alive until every byte has landed.
  } else {
    // ---- consumers: warpgroup c = 0, 1 computes rows 64·c … 64·c+63 of the tile ----
    h::setmaxnreg_inc<kConsumerRegs>();
    const int c = warpgroup - 1, warp = (tid % 128) / 32;
    float acc[128];  // the 64×256 product (layout: hopper_ptx.cuh, wgmma_m64n256k16_f16_f32)
#pragma unroll
    for (int e = 0; e < 128; ++e) acc[e] = 0.0f;

    for (int kt = 0; kt < ktiles; ++kt) {
      const int s = kt % kStages;
      h::mbarrier_wait(&full[s], static_cast<std::uint32_t>((kt / kStages) % 2));
      h::wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < BK / 16; ++ks) {
        // A: rows 64·c …, k-step ks = 32 bytes into each 128-byte row; stride 1024 (next 8 rows).
        const std::uint64_t desc_a = h::smem_descriptor_sw128(slot_a(s) + c * 64 * 128 + ks * 32, 16, 1024);
        // B: k-step ks = rows 16·ks …; leading offset 8192 (next 64 columns), stride 1024 (next 8 rows).
        const std::uint64_t desc_b = h::smem_descriptor_sw128(slot_b(s) + ks * 16 * 128, S::kBBoxBytes, 1024);
        h::wgmma_m64n256k16_f16_f32(acc, desc_a, desc_b);
      }
      h::wgmma_commit_group();
      h::wgmma_wait_group<1>();  // k-tile kt-1's MMAs are done in this warp: its slot may be refilled
      if (kt >= 1 && lane == 0) h::mbarrier_arrive(&empty[(kt - 1) % kStages]);
    }
    h::wgmma_wait_group<0>();

    // Epilogue: the consumer's 64 rows straight from registers to C.
    const int m = static_cast<int>(g.p.m), n = static_cast<int>(g.p.n);
    h::store_accumulators<BN>(acc, g.c, g.ldc, m, n, row0 + 64 * c, col0, c_rows_8B, warp, lane);
  }
#else
  (void)tma_a; (void)tma_b; (void)g; (void)c_rows_8B;
  __trap();  // the launcher starts this kernel only where its sm_90a code runs
#endif
}

}  // namespace tcu::gemm
