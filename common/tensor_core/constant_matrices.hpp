#pragma once
// The constant 16×16 matrices that turn a matrix product into a reduction or a scan
// (docs/algorithms.md, "Constant matrices"), defined once for the whole tutorial: one constexpr
// rule per matrix, read by the host (chapter 01's lesson prints them, the host tests build
// them) and by the device (fragments.cuh writes them into shared memory for WMMA).
//
//   matrix  param                 entry (r, c) is one iff     what multiplying by it does
//   P       —                     r == 0                      P·A: column sums land in row 0
//   Pt      —                     c == 0                      A·Pᵀ: row sums land in column 0
//   U       —                     r <= c                      A·U: inclusive scan of every row
//   L       g rows per segment    c < r, same segment         L·A: exclusive scan of every column,
//           (0: one segment)        (r / g == c / g)            restarting every g rows
//   ones    —                     always                      X·1: row i everywhere = Σ row i
//   E       q                     r == q                      E_q·B: row q = the column sums of B
//   M       m rows per segment    c == r / m                  V·M: column j = Σ of V's row group j
//
// Pᵀ needs no storage of its own on the device: P's row-major memory loaded as a col_major
// matrix_b fragment IS Pᵀ (chapter 01 shows it).
// Erratum of Dakkak et al. §5 (text only): it says U[r][c] = 1 if r >= c and L[r][c] = 1 if
// r < c, the transposes of the matrices its figures draw; the drawn ones (above) give a scan.
#include "common/int_math.hpp"

namespace tcu::tc {

inline constexpr int kTile = 16;                  // the WMMA m16n16k16 tile
inline constexpr int kTileElems = kTile * kTile;  // 256

enum class ConstantMatrix { P, Pt, U, L, ones, E, M };

// Is entry (row, col) of the matrix one (else zero)? `param` as in the table above.
// Every tensor-core kernel builds its constant tiles from these rules; the host table of names
// and rules (constant_matrices_host.hpp) prints them.
TCU_HOST_DEVICE constexpr bool constant_entry_is_one(ConstantMatrix m, int row, int col, int param = 0) {
  if (m == ConstantMatrix::E) return row == param;
  if (m == ConstantMatrix::M) return col == row / (param > 0 ? param : 1);
  // BEGIN EXERCISE 01.1 The entry rules of P, Pᵀ, U, L and 1 (no GPU needed)
  // HINT: Return whether entry (row, col) of the 16×16 matrix m is one, as the table above says
  // HINT: in words: P row 0, Pᵀ column 0, U where row <= col, L where col < row and, when
  // HINT: param > 0, both lie in the same segment of `param` rows (row / param == col / param),
  // HINT: 1 everywhere. Every tensor-core kernel of the later chapters builds its constant tiles
  // HINT: from this function, so do this exercise first.
  // SIZE: 6 to 8 lines
  switch (m) {
    case ConstantMatrix::P: return row == 0;
    case ConstantMatrix::Pt: return col == 0;
    case ConstantMatrix::U: return row <= col;
    case ConstantMatrix::L: return col < row && (param <= 0 || row / param == col / param);
    case ConstantMatrix::ones: return true;
    default: break;
  }
  // STUB: (void)row;
  // STUB: (void)col;
  // STUB: (void)param;
  // END EXERCISE
  return false;
}

}  // namespace tcu::tc
