#pragma once
// The Hopper instructions of steps 12 and 13 as small device functions: TMA tile copies, the
// mbarriers they complete, warpgroup MMAs (wgmma) with their shared-memory descriptors, and
// the register reallocation between warpgroups (setmaxnreg) of step 13.
// Every body exists only in the sm_90a pass (__CUDA_ARCH_FEAT_SM90_ALL): wgmma is not part of
// compute_90 PTX, so a plain sm_90 build, or any other architecture, compiles them to a trap.
// The launcher never starts them there (gemm_hopper.cu checks the kernel image first).
//
//   mbarrier         a 64-bit shared-memory object counting arrivals and transaction bytes;
//                    a phase completes when both reach zero, and waiters poll its parity
//   TMA              cp.async.bulk.tensor: one thread asks the copy engine for a whole box of
//                    a tensor (described by a CUtensorMap made on the host); the box lands in
//                    shared memory, swizzled as the map says, out-of-bounds elements as zeros,
//                    and its byte count is subtracted from the mbarrier's transaction count
//   wgmma            wgmma.mma_async: 128 threads (a warpgroup) issue one m64nNk16 MMA whose
//                    A and B are read by the tensor cores straight from shared memory through
//                    64-bit descriptors; fence / commit_group / wait_group order it
//   setmaxnreg       a warpgroup gives registers back to the block's pool (.dec) or takes
//                    them from it (.inc); all four warps of the warpgroup execute it
#include <cstdint>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TCU_SM90A_BODY 1
#else
#define TCU_SM90A_BODY 0
#endif

namespace tcu::gemm::hopper {

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// ---- mbarrier ----------------------------------------------------------------------------

__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, std::uint32_t arrivals) {
#if TCU_SM90A_BODY
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(arrivals) : "memory");
#else
  (void)bar; (void)arrivals;
#endif
}

// The barriers were initialised by ordinary (generic-proxy) stores; the TMA unit reads and
// updates them through the async proxy. This fence orders the two, before the first copy.
__device__ __forceinline__ void fence_barrier_init() {
#if TCU_SM90A_BODY
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// One arrival, and `bytes` more transaction bytes expected before the phase can complete.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
#if TCU_SM90A_BODY
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
#else
  (void)bar; (void)bytes;
#endif
}

// One arrival, no transaction bytes (step 13's consumers: "this slot may be refilled").
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
#if TCU_SM90A_BODY
  asm volatile(
      "{\n"
      ".reg .b64 state;\n"
      "mbarrier.arrive.shared::cta.b64 state, [%0];\n"
      "}\n" ::"r"(smem_addr(bar))
      : "memory");
#else
  (void)bar;
#endif
}

// Wait until the phase with parity `parity` (0, 1, 0, … for the 1st, 2nd, 3rd use) completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) {
#if TCU_SM90A_BODY
  std::uint32_t done = 0;
  do {  // try_wait suspends the thread for a while (a hardware time limit) before it says no
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  } while (done == 0);
#else
  (void)bar; (void)parity;
#endif
}

// ---- TMA ---------------------------------------------------------------------------------

// Box (c0, c1) of a 2-D tensor map → shared memory at dst, completing on `bar`. c0 is the
// coordinate along the contiguous dimension (elements), c1 the row. `tensor_map` is the
// address of a CUtensorMap kernel parameter (__grid_constant__: it must stay in parameter
// space, where the TMA unit can read it).
__device__ __forceinline__ void tma_load_2d(void* dst, const void* tensor_map, std::uint64_t* bar, int c0, int c1) {
#if TCU_SM90A_BODY
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          smem_addr(dst)),
      "l"(reinterpret_cast<std::uint64_t>(tensor_map)), "r"(c0), "r"(c1), "r"(smem_addr(bar))
      : "memory");
#else
  (void)dst; (void)tensor_map; (void)bar; (void)c0; (void)c1;
#endif
}

// ---- wgmma -------------------------------------------------------------------------------

// The 64-bit shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"):
//   bits  0-13  start address >> 4          bits 32-45  stride dimension byte offset >> 4
//   bits 16-29  leading dimension byte offset >> 4
//   bits 49-51  base offset (0: the swizzle pattern starts on a 1024-byte boundary)
//   bits 62-63  swizzle mode: 1 = 128-byte swizzle
// What the two offsets mean for each operand of step 12 is worked out in 12_wgmma_tma.cuh.
__device__ __forceinline__ std::uint64_t smem_descriptor_sw128(const void* start, std::uint32_t leading_bytes,
                                                               std::uint32_t stride_bytes) {
  return static_cast<std::uint64_t>((smem_addr(start) & 0x3FFFF) >> 4) |
         static_cast<std::uint64_t>((leading_bytes & 0x3FFFF) >> 4) << 16 |
         static_cast<std::uint64_t>((stride_bytes & 0x3FFFF) >> 4) << 32 | 1ull << 62;
}

// Orders this warpgroup's register accesses (the accumulators) before the wgmma that follow.
__device__ __forceinline__ void wgmma_fence() {
#if TCU_SM90A_BODY
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void wgmma_commit_group() {
#if TCU_SM90A_BODY
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

// Wait until at most kPending committed wgmma groups of this warp are still running.
template <int kPending>
__device__ __forceinline__ void wgmma_wait_group() {
#if TCU_SM90A_BODY
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
#endif
}

// d += A·B for one m64n128k16 tile: fp16 A (K-major, descriptor a) and B (N-major: the
// imm-trans-b operand is 1, descriptor b), fp32 accumulators. d holds this thread's 64 of the
// 64×128 fp32 results: warp w of the warpgroup owns rows 16w … 16w+15, and within n8 column
// block j (0…15) a lane holds d[4j + 2h + e] = D[16w + lane/4 + 8h][8j + 2(lane%4) + e], the
// accumulator layout of mma.m16n8 repeated along N.
__device__ __forceinline__ void wgmma_m64n128k16_f16_f32(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b) {
#if TCU_SM90A_BODY
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, accumulate, 1, 1, 0, 1;\n"  // D += A·B; scale-a = scale-b = 1; trans-a = 0, trans-b = 1
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(1));
#else
  (void)d; (void)desc_a; (void)desc_b;
#endif
}

// d += A·B for one m64n256k16 tile (step 13): the same operands, modes and layout as
// m64n128k16 above, twice as wide. d holds this thread's 128 of the 64×256 fp32 results:
// d[4j + 2h + e] = D[16w + lane/4 + 8h][8j + 2(lane%4) + e] for the 32 n8 blocks j.
//
// 128 accumulator operands are too many to write out and check by eye, so the preprocessor
// writes them. The operand numbers in the template must be literal text: "%0" … "%9" are
// spelled out, TCU_WGMMA_OPS10(t) spells "%t0" … "%t9" for the tens t = 1 … 11, and "%120" …
// "%127" are spelled out again; TCU_WGMMA_D8(i) binds d[i] … d[i+7], in the same order.
// After the accumulators come desc_a (%128), desc_b (%129) and the scale-d flag (%130).
#define TCU_WGMMA_OPS10(t) \
  "%" #t "0, %" #t "1, %" #t "2, %" #t "3, %" #t "4, %" #t "5, %" #t "6, %" #t "7, %" #t "8, %" #t "9, "
#define TCU_WGMMA_D8(i)                                                                                   \
  "+f"(d[(i) + 0]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), "+f"(d[(i) + 4]), "+f"(d[(i) + 5]), \
      "+f"(d[(i) + 6]), "+f"(d[(i) + 7])
#define TCU_WGMMA_D32(i) TCU_WGMMA_D8((i) + 0), TCU_WGMMA_D8((i) + 8), TCU_WGMMA_D8((i) + 16), TCU_WGMMA_D8((i) + 24)
__device__ __forceinline__ void wgmma_m64n256k16_f16_f32(float (&d)[128], std::uint64_t desc_a,
                                                         std::uint64_t desc_b) {
#if TCU_SM90A_BODY
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, " TCU_WGMMA_OPS10(1) TCU_WGMMA_OPS10(2) TCU_WGMMA_OPS10(3)
          TCU_WGMMA_OPS10(4) TCU_WGMMA_OPS10(5) TCU_WGMMA_OPS10(6) TCU_WGMMA_OPS10(7) TCU_WGMMA_OPS10(8)
              TCU_WGMMA_OPS10(9) TCU_WGMMA_OPS10(10) TCU_WGMMA_OPS10(11)
      "%120, %121, %122, %123, %124, %125, %126, %127}, "
      "%128, %129, accumulate, 1, 1, 0, 1;\n"  // D += A·B; scale-a = scale-b = 1; trans-a = 0, trans-b = 1
      "}\n"
      : TCU_WGMMA_D32(0), TCU_WGMMA_D32(32), TCU_WGMMA_D32(64), TCU_WGMMA_D32(96)
      : "l"(desc_a), "l"(desc_b), "r"(1));
#else
  (void)d; (void)desc_a; (void)desc_b;
#endif
}
#undef TCU_WGMMA_D32
#undef TCU_WGMMA_D8
#undef TCU_WGMMA_OPS10

// ---- the accumulators to C ---------------------------------------------------------------

// Writes one m64nN wgmma accumulator (d: this thread's N/2 values, the layout above) to the
// row-major fp32 matrix C (m×n, leading dimension ldc), its 64×N product starting at row
// `first_row`, column `col0`. Warp w of the warpgroup holds rows 16w + lane/4 (+8) and, in n8
// block j, columns 8j + 2·(lane%4) (+1): float2 stores where both columns exist and C's rows
// are 8-byte aligned, scalar stores at the right edge; rows past m are skipped.
template <int kN>
__device__ __forceinline__ void store_accumulators(const float (&d)[kN / 2], float* c, std::int64_t ldc, int m, int n,
                                                   int first_row, int col0, bool c_rows_8B, int warp, int lane) {
  const int r_lane = 16 * warp + lane / 4, c_lane = 2 * (lane % 4);
#pragma unroll
  for (int half_row = 0; half_row < 2; ++half_row) {
    const int r = first_row + r_lane + 8 * half_row;
    if (r >= m) continue;
    float* crow = c + static_cast<std::int64_t>(r) * ldc;
#pragma unroll
    for (int j = 0; j < kN / 8; ++j) {
      const int col = col0 + 8 * j + c_lane;
      const float v0 = d[4 * j + 2 * half_row], v1 = d[4 * j + 2 * half_row + 1];
      if (col + 1 < n && c_rows_8B) {
        *reinterpret_cast<float2*>(crow + col) = make_float2(v0, v1);
      } else {
        if (col < n) crow[col] = v0;
        if (col + 1 < n) crow[col + 1] = v1;
      }
    }
  }
}

// ---- setmaxnreg --------------------------------------------------------------------------

// Step 13's warpgroups have unequal needs: the producer holds a few addresses, a consumer 128
// accumulators. The block starts with the same count per thread (its cap at launch, set by
// __launch_bounds__(384, 1)); the producer gives registers back, the consumers take them.
// kRegs: a multiple of 8 in 24 … 256; executed by every thread of the warpgroup.
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg takes multiples of 8 in 24..256");
#if TCU_SM90A_BODY
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg takes multiples of 8 in 24..256");
#if TCU_SM90A_BODY
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}

}  // namespace tcu::gemm::hopper
