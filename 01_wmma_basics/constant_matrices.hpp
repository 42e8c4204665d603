#pragma once
// The constant matrices of docs/algorithms.md ("Constant matrices"), as 16×16 row-major host
// matrices, plus a tiny host matrix product to check what multiplying by them does.
// Later chapters (reduction, scan) build their fragments from the same definitions.
//
//   P   row 0 all ones, rest 0           P·A  : column sums land in row 0
//   Pᵀ  column 0 all ones, rest 0        A·Pᵀ : row sums land in column 0
//   U   U[k][j] = 1 iff k <= j           A·U  : inclusive scan of every row
//   L   L[i][k] = 1 iff k <  i           L·A  : exclusive scan of every column
//   1   all ones                         X·1  : every element of row i = sum of row i
//
// Erratum (Dakkak et al. §5): the paper's text says U[r][c] = 1 if r >= c and L[r][c] = 1
// if r < c, which is the transpose of the matrices it draws. The drawn ones — the ones above
// — are those that give a scan: (A·U)[i][j] = sum_k A[i][k]·U[k][j] = sum_{k<=j} A[i][k].
#include <cstddef>
#include <vector>

#include "common/data.cuh"       // from_double: the same rounding for every element type
#include "common/reference.hpp"  // reference_gemm
#include "common/tensor_core/constant_matrices.hpp"

namespace tcu::wmma_basics {

// The definitions live in the shared tensor-core layer (common/tensor_core/), because the
// reduction and scan chapters build their fragments from the very same table.
inline constexpr int kConstantTile = tc::kTile;  // the WMMA m16n16k16 tile the matrices are made for
using tc::ConstantMatrix;
using tc::constant_entry_is_one;
using tc::constant_matrix_name;
using tc::kConstantMatrices;

inline constexpr ConstantMatrix kAllConstantMatrices[] = {ConstantMatrix::P, ConstantMatrix::Pt, ConstantMatrix::U,
                                                          ConstantMatrix::L, ConstantMatrix::ones};

// The 16×16 matrix, row-major, as float, __half or double (0 and 1 are exact in all of them).
// `param` as in common/tensor_core/constant_matrices.hpp (L: rows per segment, E: q, M: m).
template <class T>
std::vector<T> make_constant_matrix(ConstantMatrix m, int param = 0) {
  std::vector<T> out(static_cast<std::size_t>(kConstantTile) * kConstantTile);
  // The rules themselves are exercise 01.1 (common/tensor_core/constant_matrices.hpp).
  for (int r = 0; r < kConstantTile; ++r)
    for (int c = 0; c < kConstantTile; ++c)
      out[static_cast<std::size_t>(r) * kConstantTile + c] =
          from_double<T>(constant_entry_is_one(m, r, c, param) ? 1.0 : 0.0);
  return out;
}

// C = A·B for row-major n×n matrices, in FP64: the host model of one MMA, for the host tests.
// A thin square wrapper of tcu::reference_gemm, so the whole tutorial has one reference.
template <class TA, class TB>
std::vector<double> host_matmul(const std::vector<TA>& a, const std::vector<TB>& b, std::size_t n = kConstantTile) {
  std::vector<double> c, abs_c;
  reference_gemm(a.data(), Layout::row_major, b.data(), Layout::row_major, n, n, n, c, abs_c);
  return c;
}

}  // namespace tcu::wmma_basics
