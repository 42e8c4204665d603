#pragma once
// Step 11 — beyond the study: PTX mma.sync.m16n8k16 fed by ldmatrix. Same block tile and
// cp.async pipeline as step 10, but the warp now controls the fragments itself:
//
//   ldmatrix.x4        one instruction loads a whole 16×16 A fragment (four 8×8 matrices,
//                      each lane supplying one 16-byte row address) from padded shared memory
//   ldmatrix.x4.trans  B is row-major (k × n) in shared memory but mma wants it "col": the
//                      .trans form transposes each 8×8 matrix on the way, two n8 fragments per call
//   mma.sync m16n8k16  row.col, fp16 × fp16 + fp32 → fp32, accumulators stay in registers
//   epilogue           straight from registers to C (c0,c1: row g, cols 2t,2t+1; c2,c3: row g+8)
//
//   per warp and 16-wide k-step (64×64 warp tile):  4 ldmatrix.x4 (A) + 4 ldmatrix.x4.trans (B)
//                                                   → 32 mma.sync (4 × 8 tiles of 16×8)
//
// Padding rows by 16 bytes makes each ldmatrix phase (8 row addresses) hit 8 distinct groups
// of 4 banks: A rows are 80 bytes apart (20 words: 0,20,8,28,16,4,24,12 mod 32), B rows 272
// bytes (68 words: 0,4,…,28 mod 32) — no bank conflicts without a swizzle. No shared-memory
// round trip for C (step 10 needs one because WMMA's accumulator layout is opaque).
#include <cuda_fp16.h>

#include <cstdint>

#include "02_gemm_variants/kernels/10_wmma_pipelined.cuh"  // PipelinedShape, run_k_pipeline
#include "02_gemm_variants/kernels/tile_copy.cuh"

namespace tcu::gemm {

__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const __half* smem_row) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem_row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
#else
  (void)r; (void)smem_row;
#endif
}

__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const __half* smem_row) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem_row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
#else
  (void)r; (void)smem_row;
#endif
}

// d = a·b + d for one m16n8k16 tile (fp16 inputs, fp32 accumulators).
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                             std::uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  (void)d; (void)a; (void)b0; (void)b1;
#endif
}

template <int BM, int BN, int BK, int WM, int WN, int kStages, int kGroupRows, CopyMode kMode>
__global__ void __launch_bounds__(WmmaTileShape<BM, BN, BK, WM, WN>::kThreads)
    gemm_mma_sync_ldmatrix_kernel(GemmArgs<__half> g, bool c_rows_8B) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using S = PipelinedShape<BM, BN, BK, WM, WN, kStages>;
  constexpr int kMi = WM / 16, kNi = WN / 8;  // m16 × n8 mma tiles per warp
  static_assert(kNi % 2 == 0, "ldmatrix.x4.trans loads two n8 fragments at a time");
  extern __shared__ __align__(128) unsigned char smem[];
  __half* slots = reinterpret_cast<__half*>(smem);

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
  int row0, col0;
  block_tile_origin<kGroupRows>(BM, BN, row0, col0);
  const int m = static_cast<int>(g.p.m), n = static_cast<int>(g.p.n), k = static_cast<int>(g.p.k);

  float acc[kMi][kNi][4];
#pragma unroll
  for (int i = 0; i < kMi; ++i)
#pragma unroll
    for (int j = 0; j < kNi; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

  // The row each lane points ldmatrix at: A: row lane%16, k-half lane/16 (matrices a0..a3);
  // B: k-row lane%8 + 8·((lane/8)%2), n-half lane/16 (b0,b1 of two n8 fragments).
  const int a_row = lane % 16, a_col = (lane / 16) * 8;
  const int b_row = lane % 8 + ((lane / 8) % 2) * 8, b_col = (lane / 16) * 8;
  const int a_lane = (wm + a_row) * S::kLdA + a_col;  // this lane's ldmatrix offsets in a slot
  const int b_lane = BM * S::kLdA + b_row * S::kLdB + wn + b_col;

  // Two register sets of fragments: set buf of k-step ks while the other one is multiplied.
  std::uint32_t af[2][kMi][4], bf[2][kNi][2];

  PipelineLoader<S, BM, BN, BK, kMode> load(slots, g, row0, col0);
  auto fetch = [&](int slot, int ks, int buf) {
    const __half* as = slots + slot * S::kStageHalves + a_lane + ks * 16;
    const __half* bs = slots + slot * S::kStageHalves + b_lane + ks * 16 * S::kLdB;
#pragma unroll
    for (int i = 0; i < kMi; ++i) ldmatrix_x4(af[buf][i], as + i * 16 * S::kLdA);
#pragma unroll
    for (int j = 0; j < kNi; j += 2) {
      std::uint32_t r[4];
      ldmatrix_x4_trans(r, bs + j * 8);
      bf[buf][j][0] = r[0];
      bf[buf][j][1] = r[1];
      bf[buf][j + 1][0] = r[2];
      bf[buf][j + 1][1] = r[3];
    }
  };
  auto mma = [&](int buf) {
#pragma unroll
    for (int i = 0; i < kMi; ++i)
#pragma unroll
      for (int j = 0; j < kNi; ++j) mma_m16n8k16(acc[i][j], af[buf][i], bf[buf][j][0], bf[buf][j][1]);
  };
  const int whole_ktiles = kMode == CopyMode::cp_async16 ? k / BK : 0;
  run_k_pipeline<kStages, BK / 16>(static_cast<int>(ceil_div(k, BK)), whole_ktiles, load, fetch, mma);

  const int g_row = lane / 4, t_col = (lane % 4) * 2;
#pragma unroll
  for (int i = 0; i < kMi; ++i)
#pragma unroll
    for (int half_row = 0; half_row < 2; ++half_row) {
      const int r = row0 + wm + i * 16 + g_row + half_row * 8;
      if (r >= m) continue;
      float* crow = g.c + static_cast<std::int64_t>(r) * g.ldc;
#pragma unroll
      for (int j = 0; j < kNi; ++j) {
        const int c = col0 + wn + j * 8 + t_col;
        const float v0 = acc[i][j][half_row * 2], v1 = acc[i][j][half_row * 2 + 1];
        if (c + 1 < n && c_rows_8B) {
          *reinterpret_cast<float2*>(crow + c) = make_float2(v0, v1);
        } else {
          if (c < n) crow[c] = v0;
          if (c + 1 < n) crow[c + 1] = v1;
        }
      }
    }
#else
  (void)g; (void)c_rows_8B;
  __trap();  // the launcher refuses GPUs below sm_80
#endif
}

}  // namespace tcu::gemm
