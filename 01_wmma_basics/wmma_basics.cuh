#pragma once
// Chapter 01, the public API: every kernel of the lesson behind a host launch function.
//
// Conventions (those of every chapter's API):
//   - device pointers, stream-ordered, one warp per call (these are one-tile lessons);
//   - every function returns cudaError_t and never throws;
//   - arguments are validated BEFORE anything is launched: a null pointer, a leading
//     dimension shorter than the tile, or a tile that breaks the WMMA rules (32-byte aligned
//     pointer, ldm a multiple of 16 bytes: common/wmma_rules.cuh) gives cudaErrorInvalidValue
//     and launches nothing — breaking those rules on the device is undefined behaviour;
//   - kernels that need sm_80 (bf16, tf32, PTX mma.m16n8k16) return cudaErrorNotSupported when
//     the running GPU, or the binary built for it, is older (they still compile for sm_75).
//
// This header is plain C++ for the host compiler too (no kernels in it), so host code and
// host tests can include it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <type_traits>

#include "01_wmma_basics/constant_matrices.hpp"
#include "01_wmma_basics/ptx_m16n8k16_layout.hpp"
#include "common/reference.hpp"  // tcu::Layout
#include "common/wmma_rules.cuh"

namespace tcu::wmma_basics {

// ---------------------------------------------------------------------------------------------
// Tile shapes: D (m×n) = A (m×k) · B (k×n) + C (m×n), one warp.
struct MmaShape {
  int m, n, k;
};
inline constexpr MmaShape kShape16x16x16{16, 16, 16};  // fp16, bf16 (sm_80+)
inline constexpr MmaShape kShape32x8x16{32, 8, 16};    // fp16: a taller, narrower output
inline constexpr MmaShape kShape8x32x16{8, 32, 16};    // fp16: a shorter, wider output
inline constexpr MmaShape kShape16x16x8{16, 16, 8};    // tf32 (sm_80+): half the depth
static_assert(kShape32x8x16.m * kShape32x8x16.n == 256 && kShape8x32x16.m * kShape8x32x16.n == 256,
              "every WMMA fp16 shape produces 256 outputs: 8 per lane of a warp");

// ---------------------------------------------------------------------------------------------
// A tile in memory: where it starts, how it is stored, and its leading dimension (elements
// between the starts of consecutive rows (row-major) or columns (col-major)).
template <class T>
struct Tile {
  T* data = nullptr;
  Layout layout = Layout::row_major;
  std::size_t ld = 0;  // 0: packed (the tile's own width for row-major, height for col-major)

  // A writable tile can be read: Tile<__half> converts to the Tile<const __half> operands take.
  template <class U = T, std::enable_if_t<!std::is_const_v<U>, int> = 0>
  operator Tile<const U>() const {
    return Tile<const U>{data, layout, ld};
  }
};

template <class T>
Tile<T> tile(T* data, Layout layout = Layout::row_major, std::size_t ld = 0) {
  return Tile<T>{data, layout, ld};
}

// The leading dimension a tile of rows × cols actually uses.
inline std::size_t effective_ld(Layout layout, std::size_t ld, int rows, int cols) {
  if (ld != 0) return ld;
  return static_cast<std::size_t>(layout == Layout::row_major ? cols : rows);
}

// Elements from the tile's first to one past its last: what a buffer must hold.
inline std::size_t tile_span(Layout layout, std::size_t ld, int rows, int cols) {
  const std::size_t e = effective_ld(layout, ld, rows, cols);
  const std::size_t outer = static_cast<std::size_t>(layout == Layout::row_major ? rows : cols);
  const std::size_t inner = static_cast<std::size_t>(layout == Layout::row_major ? cols : rows);
  return (outer - 1) * e + inner;
}

// Empty when the tile may be handed to load_matrix_sync / store_matrix_sync; otherwise why not.
std::string describe_tile_problem(const void* data, Layout layout, std::size_t ld, int rows, int cols,
                                  std::size_t element_bytes);
template <class T>
std::string describe_tile_problem(const Tile<T>& t, int rows, int cols) {
  return describe_tile_problem(static_cast<const void*>(t.data), t.layout, t.ld, rows, cols, sizeof(T));
}

// ---------------------------------------------------------------------------------------------
// One-warp products D = A·B (the accumulator starts as fill_fragment(0)).
// A is m×k, B is k×n, D is m×n; each may be row- or column-major with any legal ld.
// Loading row-major memory as col_major gives the transpose for free; storing with
// mem_col_major writes Dᵀ's row-major image.
cudaError_t mma_16x16x16_f16_f32acc(Tile<const __half> a, Tile<const __half> b, Tile<float> d,
                                    cudaStream_t stream = 0);
cudaError_t mma_16x16x16_f16_f16acc(Tile<const __half> a, Tile<const __half> b, Tile<__half> d,
                                    cudaStream_t stream = 0);
cudaError_t mma_32x8x16_f16_f32acc(Tile<const __half> a, Tile<const __half> b, Tile<float> d,
                                   cudaStream_t stream = 0);
cudaError_t mma_8x32x16_f16_f32acc(Tile<const __half> a, Tile<const __half> b, Tile<float> d,
                                   cudaStream_t stream = 0);
// sm_80+: bf16 operands; tf32 operands read as fp32 from memory and rounded to tf32 in the
// fragment (__float_to_tf32, an element-wise operation: see below).
cudaError_t mma_16x16x16_bf16_f32acc(Tile<const __nv_bfloat16> a, Tile<const __nv_bfloat16> b, Tile<float> d,
                                     cudaStream_t stream = 0);
cudaError_t mma_16x16x8_tf32_f32acc(Tile<const float> a, Tile<const float> b, Tile<float> d, cudaStream_t stream = 0);

// ---------------------------------------------------------------------------------------------
// Element-wise fragment operations: D = relu(alpha · (A·B + beta)), 16×16×16, fp32 accumulator.
// The accumulator starts as fill_fragment(beta) and the epilogue touches every x[i] the same
// way — neither needs to know which (row, col) a slot holds, so both are portable.
cudaError_t mma_16x16x16_relu_epilogue(Tile<const __half> a, Tile<const __half> b, float alpha, float beta,
                                       Tile<float> d, cudaStream_t stream = 0);

// ---------------------------------------------------------------------------------------------
// Fragment layout probe: which element each lane's x[i] holds, on the running GPU.
enum class FragmentKind {
  matrix_a_row_major,
  matrix_a_col_major,
  matrix_b_row_major,
  matrix_b_col_major,
  accumulator_f32,
  accumulator_f16,
};
inline constexpr FragmentKind kAllFragmentKinds[] = {
    FragmentKind::matrix_a_row_major, FragmentKind::matrix_a_col_major, FragmentKind::matrix_b_row_major,
    FragmentKind::matrix_b_col_major, FragmentKind::accumulator_f32,    FragmentKind::accumulator_f16};
const char* fragment_kind_name(FragmentKind kind);

// Slots recorded per lane: the largest num_elements of any 16×16×16 fragment (__half operands).
inline constexpr int kProbeSlotsPerLane = 16;
// d_slots: kWarpLanes * kProbeSlotsPerLane ints; slot (lane, i) gets row * 16 + col of the
// element x[i] holds, -1 (kUnusedSlot) past num_elements, -2 if the value is no element id.
cudaError_t probe_fragment_layout(FragmentKind kind, int* d_slots, cudaStream_t stream = 0);

// ---------------------------------------------------------------------------------------------
// PTX mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, registers filled by the DOCUMENTED
// layout (ptx_m16n8k16_layout.hpp). Two instructions make the 16×16 output. Each lane loads
// its own elements, so only the natural 2-byte alignment of __half is needed. sm_80+.
cudaError_t ptx_mma_16x16x16_f16_f32acc(Tile<const __half> a, Tile<const __half> b, Tile<float> d,
                                        cudaStream_t stream = 0);
// Observes one operand's layout through the hardware (trusting the documented layout of the
// other two): d_slots holds kWarpLanes * ptx_regs_per_lane(op) ints, (lane, i) -> row*16+col
// (-1 if no element carried that register's tag). sm_80+.
cudaError_t observe_ptx_m16n8k16_layout(PtxOperand op, int* d_slots, cudaStream_t stream = 0);

// ---------------------------------------------------------------------------------------------
// Preview of chapters 03/04: products with the constant matrices, 16×16×16, fp32 accumulator.
enum class ConstantProduct { P_X, X_Pt, X_U, L_X, X_ones };
inline constexpr ConstantProduct kAllConstantProducts[] = {
    ConstantProduct::P_X, ConstantProduct::X_Pt, ConstantProduct::X_U, ConstantProduct::L_X, ConstantProduct::X_ones};
const char* constant_product_name(ConstantProduct op);  // "P*X", "X*Pt", ...
// Which constant matrix, and on which side of X it stands.
ConstantMatrix constant_of(ConstantProduct op);
bool constant_on_left(ConstantProduct op);
// D = the product; X may be row- or column-major.
cudaError_t constant_product(ConstantProduct op, Tile<const __half> x, Tile<float> d, cudaStream_t stream = 0);

// ---------------------------------------------------------------------------------------------
// The raw 16×16×16 kernel with NO argument checks — only for showing what breaking the WMMA
// rules does (the alignment demo runs it in a child process, because a misaligned-address
// fault is sticky and ends the CUDA context). a, b, d row-major with the given ldm.
namespace unchecked {
cudaError_t mma_16x16x16_f16_f32acc(const __half* a, unsigned lda, const __half* b, unsigned ldb, float* d,
                                    unsigned ldd, cudaStream_t stream = 0);
}  // namespace unchecked

}  // namespace tcu::wmma_basics
