// The layer under WMMA: the PTX instruction mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32,
// whose register layout IS documented (PTX ISA 9.7.14.5.8, see ptx_m16n8k16_layout.hpp).
// Because the layout is a promise, each lane can fill its registers straight from memory —
// any layout, any leading dimension, no 32-byte rule — and knows which (row, col) each of
// its results is. m16n8k16 with f16 operands needs sm_80; the bodies are guarded so the
// sm_75 build compiles, and the launch functions refuse an image without them.
#include <cstdint>
#include <cstring>

#include "01_wmma_basics/fragment_map.hpp"
#include "01_wmma_basics/launch_support.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TCU01_HAS_MMA_M16N8K16 1
#else
#define TCU01_HAS_MMA_M16N8K16 0
#endif

namespace tcu::wmma_basics {
namespace {

constexpr int kTile = 16;  // the 16×16 output is two m16n8k16 products side by side
static_assert(kTile == kPtxM && kTile == kPtxK && kTile == 2 * kPtxN, "two m16n8k16 make one 16x16x16");

// The device helpers exist only where the instruction does (sm_80+); elsewhere the kernels
// below are empty and never run.
#if TCU01_HAS_MMA_M16N8K16
__device__ std::size_t offset_of(Layout layout, int row, int col, std::size_t ld) {
  return layout == Layout::row_major ? static_cast<std::size_t>(row) * ld + col
                                     : static_cast<std::size_t>(col) * ld + row;
}

// One .f16x2 register: the element with the lower index in the lower 16 bits ("Elements
// (low to high)" in the PTX tables).
__device__ std::uint32_t pack_f16x2(__half low, __half high) {
  const __half2 pair = __halves2half2(low, high);
  std::uint32_t bits;
  memcpy(&bits, &pair, sizeof bits);
  return bits;
}

// D (16×8, fp32) = A (16×16, fp16) · B (16×8, fp16) + C, every operand in registers laid out as
// the PTX ISA documents.
__device__ void mma_m16n8k16(float (&d)[kPtxCRegsPerLane], const std::uint32_t (&a)[kPtxARegsPerLane / 2],
                             const std::uint32_t (&b)[kPtxBRegsPerLane / 2], const float (&c)[kPtxCRegsPerLane]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}

__device__ int small_int_of(float v, int limit) {
  const int x = static_cast<int>(v);
  return (static_cast<float>(x) == v && x >= 0 && x < limit) ? x : kUndecodableSlot;
}
#endif  // TCU01_HAS_MMA_M16N8K16

// D = A·B, 16×16×16, from any layout and leading dimension.
__global__ void ptx_mma_16x16x16(const __half* a, Layout la, std::size_t lda, const __half* b, Layout lb,
                                 std::size_t ldb, float* d, Layout ld_layout, std::size_t ldd) {
#if TCU01_HAS_MMA_M16N8K16
  const int lane = static_cast<int>(threadIdx.x);
  std::uint32_t a_regs[kPtxARegsPerLane / 2];
  for (int r = 0; r < kPtxARegsPerLane / 2; ++r) {
    const RowCol lo = ptx_a_position(lane, 2 * r), hi = ptx_a_position(lane, 2 * r + 1);
    a_regs[r] = pack_f16x2(a[offset_of(la, lo.row, lo.col, lda)], a[offset_of(la, hi.row, hi.col, lda)]);
  }
  for (int half = 0; half < 2; ++half) {  // output columns [0, 8), then [8, 16)
    const int col0 = half * kPtxN;
    std::uint32_t b_regs[kPtxBRegsPerLane / 2];
    for (int r = 0; r < kPtxBRegsPerLane / 2; ++r) {
      const RowCol lo = ptx_b_position(lane, 2 * r), hi = ptx_b_position(lane, 2 * r + 1);
      b_regs[r] =
          pack_f16x2(b[offset_of(lb, lo.row, col0 + lo.col, ldb)], b[offset_of(lb, hi.row, col0 + hi.col, ldb)]);
    }
    const float zero[kPtxCRegsPerLane] = {0.0f, 0.0f, 0.0f, 0.0f};
    float out[kPtxCRegsPerLane];
    mma_m16n8k16(out, a_regs, b_regs, zero);
    for (int i = 0; i < kPtxCRegsPerLane; ++i) {
      const RowCol rc = ptx_c_position(lane, i);
      d[offset_of(ld_layout, rc.row, col0 + rc.col, ldd)] = out[i];
    }
  }
#endif
}

// Observing a layout needs two operands you can trust to see the third: here the documented
// layouts of the other two. If any of the three formulas were wrong, at least one of the three
// observations would disagree with the document.
//   C: A(r, k) = r*16 + k and B = [I; 0], so D(r, n) = r*16 + n: every d_i names its own place.
//   A: a_i := its tag lane*8 + i; B = [I; 0] then [0; I] copies A's two column halves into D.
//   B: b_i := its tag lane*4 + i; A = I copies B into D.
// For A and B, D goes to shared memory by the documented C layout, and the tag found at
// (row, col) says which lane and register held that element.
__global__ void observe_ptx_layout(PtxOperand op, int* slots_out) {
#if TCU01_HAS_MMA_M16N8K16
  __shared__ int tag_at[kTile * kTile];  // tag found at (row, col), row*16 + col
  __shared__ int observed[kWarpLanes * kPtxARegsPerLane];
  const int lane = static_cast<int>(threadIdx.x);
  const int regs = ptx_regs_per_lane(op);
  for (int e = lane; e < kTile * kTile; e += kWarpLanes) tag_at[e] = kUnusedSlot;
  for (int i = 0; i < regs; ++i) observed[lane * regs + i] = kUnusedSlot;
  __syncwarp();  // cleared by every lane before any lane writes a result into them
  const float zero[kPtxCRegsPerLane] = {0.0f, 0.0f, 0.0f, 0.0f};
  float out[kPtxCRegsPerLane];
  std::uint32_t a_regs[kPtxARegsPerLane / 2];
  std::uint32_t b_regs[kPtxBRegsPerLane / 2];
  auto h = [](int v) { return __int2half_rn(v); };  // integers below 2048: exact in fp16

  if (op == PtxOperand::c) {
    for (int r = 0; r < kPtxARegsPerLane / 2; ++r) {
      const RowCol lo = ptx_a_position(lane, 2 * r), hi = ptx_a_position(lane, 2 * r + 1);
      a_regs[r] = pack_f16x2(h(lo.row * kElementIdStride + lo.col), h(hi.row * kElementIdStride + hi.col));
    }
    for (int r = 0; r < kPtxBRegsPerLane / 2; ++r) {
      const RowCol lo = ptx_b_position(lane, 2 * r), hi = ptx_b_position(lane, 2 * r + 1);
      b_regs[r] = pack_f16x2(h(lo.row == lo.col), h(hi.row == hi.col));
    }
    mma_m16n8k16(out, a_regs, b_regs, zero);
    for (int i = 0; i < kPtxCRegsPerLane; ++i) observed[lane * regs + i] = small_int_of(out[i], kTile * kTile);
  } else {
    const int halves = (op == PtxOperand::a) ? 2 : 1;  // A has 16 columns: two 8-column copies
    for (int half = 0; half < halves; ++half) {
      for (int r = 0; r < kPtxARegsPerLane / 2; ++r) {
        const RowCol lo = ptx_a_position(lane, 2 * r), hi = ptx_a_position(lane, 2 * r + 1);
        a_regs[r] = (op == PtxOperand::a) ? pack_f16x2(h(lane * regs + 2 * r), h(lane * regs + 2 * r + 1))
                                          : pack_f16x2(h(lo.row == lo.col), h(hi.row == hi.col));
      }
      for (int r = 0; r < kPtxBRegsPerLane / 2; ++r) {
        const RowCol lo = ptx_b_position(lane, 2 * r), hi = ptx_b_position(lane, 2 * r + 1);
        const int shift = half * kPtxN;  // B selects columns [shift, shift + 8) of A
        b_regs[r] = (op == PtxOperand::b) ? pack_f16x2(h(lane * regs + 2 * r), h(lane * regs + 2 * r + 1))
                                          : pack_f16x2(h(lo.row == lo.col + shift), h(hi.row == hi.col + shift));
      }
      mma_m16n8k16(out, a_regs, b_regs, zero);
      for (int i = 0; i < kPtxCRegsPerLane; ++i) {
        const RowCol rc = ptx_c_position(lane, i);
        tag_at[rc.row * kTile + half * kPtxN + rc.col] = small_int_of(out[i], kWarpLanes * regs);
      }
    }
    __syncwarp();  // every lane's part of D is in shared memory
    const int rows = ptx_rows(op), cols = ptx_cols(op);
    for (int e = lane; e < rows * cols; e += kWarpLanes) {
      const int row = e / cols, col = e % cols;
      const int tag = tag_at[row * kTile + col];
      if (tag >= 0) observed[tag] = row * kElementIdStride + col;
    }
  }
  __syncwarp();
  for (int i = 0; i < regs; ++i) slots_out[lane * regs + i] = observed[lane * regs + i];
#endif
}

template <class T>
bool plain_tile_ok(const Tile<T>& t, int rows, int cols) {
  // Scalar loads need only the natural alignment of the element type, not WMMA's 32 bytes.
  return t.data != nullptr && reinterpret_cast<std::uintptr_t>(t.data) % alignof(T) == 0 &&
         effective_ld(t.layout, t.ld, rows, cols) >= effective_ld(t.layout, 0, rows, cols);
}

}  // namespace

cudaError_t ptx_mma_16x16x16_f16_f32acc(Tile<const __half> a, Tile<const __half> b, Tile<float> d,
                                        cudaStream_t stream) {
  if (!plain_tile_ok(a, kTile, kTile) || !plain_tile_ok(b, kTile, kTile) || !plain_tile_ok(d, kTile, kTile))
    return cudaErrorInvalidValue;
  if (const cudaError_t e = detail::require_sm80_image(reinterpret_cast<const void*>(ptx_mma_16x16x16));
      e != cudaSuccess)
    return e;
  ptx_mma_16x16x16<<<1, detail::kWarpSize, 0, stream>>>(a.data, a.layout, effective_ld(a.layout, a.ld, kTile, kTile),
                                                        b.data, b.layout, effective_ld(b.layout, b.ld, kTile, kTile),
                                                        d.data, d.layout, effective_ld(d.layout, d.ld, kTile, kTile));
  return cudaGetLastError();
}

cudaError_t observe_ptx_m16n8k16_layout(PtxOperand op, int* d_slots, cudaStream_t stream) {
  if (d_slots == nullptr) return cudaErrorInvalidValue;
  if (const cudaError_t e = detail::require_sm80_image(reinterpret_cast<const void*>(observe_ptx_layout));
      e != cudaSuccess)
    return e;
  observe_ptx_layout<<<1, detail::kWarpSize, 0, stream>>>(op, d_slots);
  return cudaGetLastError();
}

}  // namespace tcu::wmma_basics
