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

#include "common/tensor_core/constant_matrices.hpp"
#include "common/tensor_core/constant_matrices_host.hpp"

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

// The host builders (make_constant_matrix<T>(m, param): the 16×16 row-major matrix as float,
// __half or double) and the host's product (host_matmul) live beside the rules, in
// common/tensor_core/constant_matrices_host.hpp, for chapters 03 and 04's host models too.
using tc::host_matmul;
using tc::make_constant_matrix;

}  // namespace tcu::wmma_basics
