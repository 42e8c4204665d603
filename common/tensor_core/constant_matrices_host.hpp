#pragma once
// The constant matrices' names and rules as the lessons print them, the matrices as 16×16
// row-major host matrices, and the host's "tensor core" (an FP64
// product of two such matrices): what the host models of chapters 01, 03 and 04 multiply with.
// The entry rules are constant_entry_is_one (constant_matrices.hpp), the same the kernels use.
#include <cstddef>
#include <vector>

#include "common/data.cuh"       // from_double: the same rounding for every element type
#include "common/reference.hpp"  // reference_gemm
#include "common/tensor_core/constant_matrices.hpp"

namespace tcu::tc {

struct ConstantMatrixInfo {
  ConstantMatrix matrix;
  const char* name;   // as the lesson prints it
  const char* param;  // what `param` means, or nullptr when the matrix has none
  const char* rule;   // the entry rule, for the lesson
};

// The one table: names, parameters and rules, in the order the lesson shows them.
inline constexpr ConstantMatrixInfo kConstantMatrices[] = {
    {ConstantMatrix::P, "P", nullptr, "P[r][c] = 1 iff r = 0"},
    {ConstantMatrix::Pt, "Pt", nullptr, "Pt[r][c] = 1 iff c = 0"},
    {ConstantMatrix::U, "U", nullptr, "U[r][c] = 1 iff r <= c"},
    {ConstantMatrix::L, "L", "rows per segment (0: none)", "L[r][c] = 1 iff c < r, in the same segment"},
    {ConstantMatrix::ones, "1", nullptr, "1[r][c] = 1"},
    {ConstantMatrix::E, "E", "q", "E_q[r][c] = 1 iff r = q"},
    {ConstantMatrix::M, "M", "rows per segment m", "M[r][c] = 1 iff c = r / m"},
};

constexpr const ConstantMatrixInfo& constant_matrix_info(ConstantMatrix m) {
  return kConstantMatrices[static_cast<int>(m)];
}
constexpr const char* constant_matrix_name(ConstantMatrix m) { return constant_matrix_info(m).name; }

constexpr bool constant_table_in_enum_order() {
  int i = 0;
  for (const ConstantMatrixInfo& info : kConstantMatrices)
    if (static_cast<int>(info.matrix) != i++) return false;
  return i == static_cast<int>(ConstantMatrix::M) + 1;
}
static_assert(constant_table_in_enum_order(), "one table row per constant matrix, in enum order");

// The 16×16 matrix, row-major, as float, __half or double (0 and 1 are exact in all of them).
// `param` as in constant_matrices.hpp (L: rows per segment, E: q, M: m).
template <class T>
std::vector<T> make_constant_matrix(ConstantMatrix m, int param = 0) {
  std::vector<T> out(static_cast<std::size_t>(kTile) * kTile);
  for (int r = 0; r < kTile; ++r)
    for (int c = 0; c < kTile; ++c)
      out[static_cast<std::size_t>(r) * kTile + c] = from_double<T>(constant_entry_is_one(m, r, c, param) ? 1.0 : 0.0);
  return out;
}

// C = A·B for row-major n×n matrices, in FP64: the host model of one MMA. A thin square wrapper
// of tcu::reference_gemm, so the whole tutorial has one reference.
template <class TA, class TB>
std::vector<double> host_matmul(const std::vector<TA>& a, const std::vector<TB>& b, std::size_t n = kTile) {
  std::vector<double> c, abs_c;
  reference_gemm(a.data(), Layout::row_major, b.data(), Layout::row_major, n, n, n, c, abs_c);
  return c;
}

}  // namespace tcu::tc
