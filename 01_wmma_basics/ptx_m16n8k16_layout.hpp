#pragma once
// The DOCUMENTED register layout of mma.sync.aligned.m16n8k16 with .f16/.bf16 operands and
// .f32 accumulators — PTX ISA, section 9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with
// floating point type" (Figures 79 ff.). Unlike WMMA fragments, this layout is part of the
// ISA, so code may compute with it: fill registers straight from memory, shuffle them, or
// read one lane's accumulator knowing which (row, col) it is.
//
//   groupID           = laneid >> 2        (0..7)
//   threadID_in_group = laneid % 4         (0..3)
//
//   A (16×16, four .f16x2 registers: a0..a7, low half first)
//     row = groupID      for a0, a1, a4, a5;   groupID + 8 for a2, a3, a6, a7
//     col = threadID_in_group*2 + (i & 1)      for a0..a3;   the same + 8 for a4..a7
//   B (16×8, two .f16x2 registers: b0..b3)
//     row = threadID_in_group*2 + (i & 1)      for b0, b1;   the same + 8 for b2, b3
//     col = groupID
//   C/D (16×8, four .f32 registers: c0..c3)
//     row = groupID      for c0, c1;           groupID + 8 for c2, c3
//     col = threadID_in_group*2 + (i & 1)
//
// Everything here is constexpr, so the device kernels and the host tests share one formula.
namespace tcu::wmma_basics {

inline constexpr int kPtxM = 16, kPtxN = 8, kPtxK = 16;
inline constexpr int kPtxARegsPerLane = 8;  // f16 elements a0..a7 (in four .f16x2 registers)
inline constexpr int kPtxBRegsPerLane = 4;  // b0..b3 (two .f16x2 registers)
inline constexpr int kPtxCRegsPerLane = 4;  // c0..c3 (four .f32 registers)
static_assert(32 * kPtxARegsPerLane == kPtxM * kPtxK, "A: every element held exactly once");
static_assert(32 * kPtxBRegsPerLane == kPtxK * kPtxN, "B: every element held exactly once");
static_assert(32 * kPtxCRegsPerLane == kPtxM * kPtxN, "C: every element held exactly once");

enum class PtxOperand { a, b, c };

struct RowCol {
  int row = 0, col = 0;
};

constexpr int ptx_group_id(int lane) { return lane >> 2; }
constexpr int ptx_thread_in_group(int lane) { return lane % 4; }

constexpr RowCol ptx_a_position(int lane, int i) {
  return {ptx_group_id(lane) + ((i & 2) ? 8 : 0), ptx_thread_in_group(lane) * 2 + (i & 1) + ((i & 4) ? 8 : 0)};
}
constexpr RowCol ptx_b_position(int lane, int i) {
  return {ptx_thread_in_group(lane) * 2 + (i & 1) + ((i & 2) ? 8 : 0), ptx_group_id(lane)};
}
constexpr RowCol ptx_c_position(int lane, int i) {
  return {ptx_group_id(lane) + ((i & 2) ? 8 : 0), ptx_thread_in_group(lane) * 2 + (i & 1)};
}

constexpr RowCol ptx_position(PtxOperand op, int lane, int i) {
  return op == PtxOperand::a   ? ptx_a_position(lane, i)
         : op == PtxOperand::b ? ptx_b_position(lane, i)
                               : ptx_c_position(lane, i);
}
constexpr int ptx_regs_per_lane(PtxOperand op) {
  return op == PtxOperand::a ? kPtxARegsPerLane : op == PtxOperand::b ? kPtxBRegsPerLane : kPtxCRegsPerLane;
}
constexpr int ptx_rows(PtxOperand op) { return op == PtxOperand::b ? kPtxK : kPtxM; }
constexpr int ptx_cols(PtxOperand op) { return op == PtxOperand::a ? kPtxK : kPtxN; }
constexpr const char* ptx_operand_name(PtxOperand op) {
  return op == PtxOperand::a ? "A (16x16)" : op == PtxOperand::b ? "B (16x8)" : "C/D (16x8)";
}

}  // namespace tcu::wmma_basics
