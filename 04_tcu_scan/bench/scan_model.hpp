#pragma once
// Host models (FP64) of the matrix formulations the kernels use, for the host tests and for
// printing MatMulScan's depth and product count. Each model performs the same matrix products
// as its kernel, on double matrices, so a test can compare it with a plain prefix sum.
//   Scan16      R = A·U
//   Scan256     R = A·U + (L·A)·1  (and with the hi/lo split of L·A, or its fp32 fallback)
//   Scan256N    R_i = A_i·U + (L·A_i)·1 + S_{i-1},  S_i = broadcast(R_i[15][15])
//   Scan16N     R_t = A_t·U + S_{t-1},              S_t = last column of R_t along each row
//   Block       tile prefixes = (totals in row 0)·U_strict
//   MatMulScan  up-sweep with L_s, down-sweep with B_s (any s, k), counting products and depth
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/int_math.hpp"
#include "common/reference.hpp"
#include "common/tensor_core/constant_matrices.hpp"
#include "common/tensor_core/constant_matrices_host.hpp"
#include "common/tensor_core/tile_geometry.hpp"

namespace tcu::bench::scan {

using Matrix = std::vector<double>;  // square, row-major
inline constexpr int kN = tc::kTile;

inline Matrix constant(tc::ConstantMatrix m, int param = 0) { return tc::make_constant_matrix<double>(m, param); }
inline Matrix matmul(const Matrix& a, const Matrix& b) { return tc::host_matmul(a, b); }
inline Matrix add(Matrix a, const Matrix& b) {
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

// BEGIN EXERCISE 04.1 CPU models of Scan16 (A·U) and Scan256 (A·U + (L·A)·1); no GPU needed
// HINT: matmul, add and constant(m) above are the host's tensor core (row-major 16×16
// HINT: doubles). Scan16 scans every row of A with one product. Scan256 scans the whole tile
// HINT: read row by row: A·U scans each row, (L·A)·1 adds to row i the sum of rows 0 … i−1.
// SIZE: 6 to 8 lines
// Scan16: every row of the tile scanned.
inline Matrix scan16(const Matrix& a) { return matmul(a, constant(tc::ConstantMatrix::U)); }

// Scan256: the tile scanned as one row-major segment of 256.
inline Matrix scan256(const Matrix& a) {
  using tc::ConstantMatrix;
  return add(matmul(a, constant(ConstantMatrix::U)),
             matmul(matmul(constant(ConstantMatrix::L), a), constant(ConstantMatrix::ones)));
}
// STUB: inline Matrix scan16(const Matrix& a) { return Matrix(a.size(), 0.0); }
// STUB: inline Matrix scan256(const Matrix& a) { return Matrix(a.size(), 0.0); }
// END EXERCISE

// Scan256 as the kernels do it in fp32 (kernels/scan_tiles.cuh), for a tile of fp16-exact
// values: L·A (an fp32 accumulator) becomes an fp16 operand through the hi/lo split when every
// value of it splits (tc::splits: |v| <= 2^15), else (L·A)·1 is summed in fp32 on the CUDA
// cores. `used_fallback` reports which. rows_per_segment masks L (0: one segment).
inline Matrix scan256_split(const Matrix& a, int rows_per_segment, bool* used_fallback = nullptr) {
  using tc::ConstantMatrix;
  const Matrix la = matmul(constant(ConstantMatrix::L, rows_per_segment), a);
  bool all_split = true;
  for (double v : la) all_split &= tc::splits(static_cast<float>(v));
  Matrix operand(la.size());
  for (std::size_t e = 0; e < la.size(); ++e) {
    const float v = static_cast<float>(la[e]);
    if (all_split) {
      const tc::HiLo h = tc::split_hi_lo(v);
      operand[e] = static_cast<double>(__half2float(h.hi)) + static_cast<double>(__half2float(h.lo));
    } else {
      operand[e] = v;  // fp32, on the CUDA cores
    }
  }
  if (used_fallback) *used_fallback = !all_split;
  // BEGIN LEFT OUT 04.1 (the two products of Scan256 would give the exercise away)
  return add(matmul(a, constant(ConstantMatrix::U)), matmul(operand, constant(ConstantMatrix::ones)));
  // STUB: (void)operand;
  // STUB: return Matrix(a.size(), 0.0);
  // END LEFT OUT
}

// Scan256N over x (length a multiple of 256): the carry broadcast in C.
inline std::vector<double> scan256n(const std::vector<double>& x) {
  std::vector<double> out(x.size());
  double carry = 0;
  for (std::size_t base = 0; base < x.size(); base += kN * kN) {
    const Matrix a(x.begin() + base, x.begin() + base + kN * kN);
    Matrix r = add(scan256(a), Matrix(kN * kN, carry));
    for (int e = 0; e < kN * kN; ++e) out[base + e] = r[e];
    carry = r[kN * kN - 1];
  }
  return out;
}

// Scan16N: 16 segments of length len (a multiple of 16), segment r at x[r·len ...].
inline std::vector<double> scan16n(const std::vector<double>& x, std::size_t len) {
  std::vector<double> out(x.size());
  Matrix s(kN * kN, 0.0);
  for (std::size_t col = 0; col < len; col += kN) {
    Matrix a(kN * kN);
    for (int r = 0; r < kN; ++r)
      for (int c = 0; c < kN; ++c) a[r * kN + c] = x[r * len + col + c];
    const Matrix rr = add(scan16(a), s);
    for (int r = 0; r < kN; ++r)
      for (int c = 0; c < kN; ++c) {
        out[r * len + col + c] = rr[r * kN + c];
        s[r * kN + c] = rr[r * kN + kN - 1];  // the last column, broadcast along the row
      }
  }
  return out;
}

// Block level (Alg. 7) on up to 16 tiles of one segment: each tile by Scan256, then the tile
// totals (row 0) times the strictly upper triangle give every tile its prefix.
inline std::vector<double> scan_block(const std::vector<double>& x) {
  const std::size_t tiles = x.size() / (kN * kN);
  std::vector<double> out(x.size());
  Matrix totals(kN * kN, 0.0), ustrict(kN * kN, 0.0);
  for (int k = 0; k < kN; ++k)
    for (int j = k + 1; j < kN; ++j) ustrict[k * kN + j] = 1;
  std::vector<Matrix> r(tiles);
  for (std::size_t t = 0; t < tiles; ++t) {
    r[t] = scan256(Matrix(x.begin() + t * kN * kN, x.begin() + (t + 1) * kN * kN));
    totals[t] = r[t][kN * kN - 1];
  }
  const Matrix prefix = matmul(totals, ustrict);
  for (std::size_t t = 0; t < tiles; ++t)
    for (int e = 0; e < kN * kN; ++e) out[t * kN * kN + e] = r[t][e] + prefix[t];
  return out;
}

// MatMulScan (Zouzias & McColl) on x of length s^k, with the products counted: every chunk of s
// is one matrix-vector product, and s chunks make one s×s by s×s product (a tile).
struct MatMulScanCounts {
  int depth = 0;               // levels of products (2k − 1)
  std::int64_t products = 0;   // s×s·s×s products (chunks batched s to a tile)
  std::int64_t bound = 0;      // the paper's ⌈2n/(s(s−1))⌉ + 2k − 2
};

inline std::vector<double> matmulscan(std::vector<double> x, int s, int k, MatMulScanCounts* counts = nullptr) {
  MatMulScanCounts c;
  std::int64_t n = 1;
  for (int i = 0; i < k; ++i) n *= s;
  if (static_cast<std::int64_t>(x.size()) != n) throw std::invalid_argument("matmulscan: x must have s^k elements");
  auto level = [&](std::int64_t start, std::int64_t stride, bool down) {
    // BEGIN EXERCISE 04.4 MatMulScan's gather, products and scatter on the host; no GPU needed
    // HINT: Gather the indices start, start + stride, … (< n); cut the gathered values into
    // HINT: chunks of s (the last one zero-padded); multiply each chunk by L_s (up-sweep: z_i =
    // HINT: Σ_{j<=i} y_j) or B_s (down-sweep: z_i = y_i + y_0 for i > 0, z_0 = y_0); scatter z
    // HINT: back to the same indices. Count ceil(chunks / s) products (s chunks make one s×s
    // HINT: tile) and one level of depth in c.
    // SIZE: 16 to 20 lines
    std::vector<std::int64_t> idx;
    for (std::int64_t i = start; i < n; i += stride) idx.push_back(i);
    const std::int64_t chunks = ceil_div(static_cast<std::int64_t>(idx.size()), s);
    for (std::int64_t ch = 0; ch < chunks; ++ch) {
      std::vector<double> y(s, 0.0), z(s, 0.0);
      for (int m = 0; m < s; ++m)
        if (ch * s + m < static_cast<std::int64_t>(idx.size())) y[m] = x[idx[ch * s + m]];
      for (int i = 0; i < s; ++i)  // z = M·y, M = L_s (lower incl. diagonal) or B_s
        for (int j = 0; j < s; ++j) {
          const bool one = down ? (i == j || j == 0) : (j <= i);
          if (one) z[i] += y[j];
        }
      for (int m = 0; m < s; ++m)
        if (ch * s + m < static_cast<std::int64_t>(idx.size())) x[idx[ch * s + m]] = z[m];
    }
    c.products += ceil_div(chunks, s);
    ++c.depth;
    // STUB: (void)start; (void)stride; (void)down;
    // END EXERCISE
  };
  std::int64_t span = 1;
  for (int t = 0; t < k; ++t, span *= s) level(span - 1, span, false);  // up-sweep
  span /= s;
  for (int t = k - 1; t >= 1; --t, span /= s) level(span - 1, span / s, true);  // down-sweep
  c.bound = ceil_div(2 * n, static_cast<std::int64_t>(s) * (s - 1)) + 2 * k - 2;
  if (counts) *counts = c;
  return x;
}

// The plain inclusive prefix sum the models are checked against.
inline std::vector<double> prefix_sum(const std::vector<double>& x) {
  std::vector<double> out(x.size());
  double acc = 0;
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = acc += x[i];
  return out;
}

}  // namespace tcu::bench::scan
