// CPU models of the formulations (cpu_models.hpp).
#include "03_tcu_reduction/bench/cpu_models.hpp"

#include <cuda_fp16.h>

#include "common/tensor_core/constant_matrices_host.hpp"
#include "common/tensor_core/tile_geometry.hpp"

namespace tcu::bench::reduce::cpu {
namespace {

namespace wb = tcu::tc;  // the constant matrices and the host's product
constexpr int kT = 16;

Matrix constant(wb::ConstantMatrix m) { return wb::make_constant_matrix<double>(m); }
Matrix mul(const Matrix& a, const Matrix& b) { return wb::host_matmul(a, b); }
Matrix add(Matrix a, const Matrix& b) {
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}
Matrix zeros() { return Matrix(kT * kT, 0.0); }

// The fp32 V made an operand: every element split into fp16 hi + lo, as the kernels do; a
// value that does not split (|v| > 2^15, the shared policy) stays fp32 (the kernels' fp32 path).
Matrix as_operand(const Matrix& v) {
  Matrix out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const float f = static_cast<float>(v[i]);
    out[i] = tc::splits(f) ? split_hi_lo(f) : static_cast<double>(f);
  }
  return out;
}

}  // namespace

double split_hi_lo(float v, double* hi, double* lo) {
  const tc::HiLo h = tc::split_hi_lo(v);
  const double a = __half2float(h.hi), b = __half2float(h.lo);
  if (hi) *hi = a;
  if (lo) *lo = b;
  return a + b;
}

Matrix load_tile(const std::vector<double>& x, std::int64_t first, std::int64_t ld, bool column_major, std::int64_t len) {
  Matrix a = zeros();
  for (int r = 0; r < kT; ++r)
    for (int c = 0; c < kT; ++c) {
      const std::int64_t i = first + (column_major ? c * ld + r : r * ld + c);
      a[r * kT + c] = (i < len && i < static_cast<std::int64_t>(x.size())) ? x[i] : 0.0;
    }
  return a;
}

std::vector<double> reduction16(const std::vector<double>& x) {
  // BEGIN EXERCISE 03.1 CPU models of Dakkak's reductions (part 1 of 2: Reduction16; no GPU needed)
  // HINT: The helpers above are the host's tensor core: load_tile(x, first, ld, column_major,
  // HINT: len) builds A, constant(m) the constant matrices, mul the 16×16 product. Load the 256
  // HINT: elements column-major (column c = segment c), V = P·A; return row 0 of V.
  // SIZE: 2 to 4 lines
  const Matrix v = mul(constant(wb::ConstantMatrix::P), load_tile(x, 0, kT, true, 256));  // V = P·A
  return std::vector<double>(v.begin(), v.begin() + kT);                                  // row 0
  // STUB: (void)x;
  // STUB: return {};
  // END EXERCISE
}

std::vector<double> reduction16_multisegment(const std::vector<double>& x, std::int64_t segment_size) {
  constexpr int kTiles = 8;
  const std::int64_t len = static_cast<std::int64_t>(x.size()), round = kTiles * kT * kT;
  const int segs_per_row = segment_size >= kT * kT ? 1 : static_cast<int>(kT * kT / segment_size);
  const int m = kT / segs_per_row;
  const int tau = segment_size > kT * kT ? static_cast<int>(segment_size / (kT * kT)) : 1;
  Matrix mm = zeros();  // M[r][j] = 1 iff r / m == j
  for (int r = 0; r < kT; ++r) mm[r * kT + r / m] = (r / m < segs_per_row) ? 1.0 : 0.0;
  std::vector<double> out;
  const std::int64_t num_segments = len / segment_size;
  for (std::int64_t e0 = 0; e0 < len; e0 += round) {
    Matrix v = zeros();
    for (int k = 0; k < kTiles; ++k) {
      Matrix e = zeros();  // E_row(k): row k / τ is ones
      for (int c = 0; c < kT; ++c) e[(k / tau) * kT + c] = 1.0;
      v = add(v, mul(e, load_tile(x, e0 + k * kT * kT, kT, true, len)));  // V += E·A_k
    }
    const Matrix r = m == 1 ? v : mul(as_operand(v), mm);  // R = V·M
    for (std::int64_t o = 0; o < round / segment_size && static_cast<std::int64_t>(out.size()) < num_segments; ++o)
      out.push_back(r[(o / segs_per_row) * kT + o % segs_per_row]);
  }
  return out;
}

// BEGIN EXERCISE 03.1 CPU models of Dakkak's reductions (part 2 of 2: Reduction256 and both Reduction256N)
// HINT: Reduction256: A row-major, V = P·A, then R = V·Pᵀ with V made an operand by
// HINT: as_operand (the hi/lo split the kernels do); the sum is R[0][0]. Work-inefficient
// HINT: 256N: one Reduction256 per tile, R_i = V_i·Pᵀ + R_{i−1}. Work-efficient: V_i = P·A_i +
// HINT: V_{i−1} over all tiles, one V_N·Pᵀ at the end. load_tile zero-pads past x.size().
// SIZE: 20 to 24 lines
double reduction256(const std::vector<double>& x) {
  const Matrix v = mul(constant(wb::ConstantMatrix::P), load_tile(x, 0, kT, false, 256));
  return mul(as_operand(v), constant(wb::ConstantMatrix::Pt))[0];  // R = V·Pᵀ, R[0][0]
}

double reduction256n_inefficient(const std::vector<double>& x) {
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  Matrix r = zeros();
  for (std::int64_t t = 0; t < n; t += 256) {
    const Matrix v = mul(constant(wb::ConstantMatrix::P), load_tile(x, t, kT, false, n));
    r = add(mul(as_operand(v), constant(wb::ConstantMatrix::Pt)), r);  // R_i = V_i·Pᵀ + R_{i−1}
  }
  return r[0];
}

double reduction256n_efficient(const std::vector<double>& x) {
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  Matrix v = zeros();
  for (std::int64_t t = 0; t < n; t += 256)
    v = add(mul(constant(wb::ConstantMatrix::P), load_tile(x, t, kT, false, n)), v);  // V_i = P·A_i + V_{i−1}
  return mul(as_operand(v), constant(wb::ConstantMatrix::Pt))[0];
}
// STUB: double reduction256(const std::vector<double>& x) { (void)x; return 0.0; }
// STUB: double reduction256n_inefficient(const std::vector<double>& x) { (void)x; return 0.0; }
// STUB: double reduction256n_efficient(const std::vector<double>& x) { (void)x; return 0.0; }
// END EXERCISE

std::vector<double> reduction16n_strided(const std::vector<double>& x, std::int64_t segment_size) {
  // Column c of step i's A = elements [16i, 16i+16) of segment c; zero past the segment.
  Matrix v = zeros();
  for (std::int64_t col = 0; col < segment_size; col += kT) {
    Matrix a = zeros();
    for (int c = 0; c < kT; ++c)
      for (int r = 0; r < kT; ++r)
        if (col + r < segment_size && c * segment_size + col + r < static_cast<std::int64_t>(x.size()))
          a[r * kT + c] = x[c * segment_size + col + r];
    v = add(mul(constant(wb::ConstantMatrix::P), a), v);
  }
  return std::vector<double>(v.begin(), v.begin() + kT);
}

std::vector<double> reduction16n_coalesced(const std::vector<double>& x, std::int64_t segment_size) {
  const std::int64_t blocks = segment_size / 256, rest = blocks * 256;
  Matrix q = zeros(), v = zeros();
  for (int c = 0; c < kT && blocks > 0; ++c) {
    Matrix w = zeros();
    for (std::int64_t b = 0; b < blocks; ++b)
      w = add(mul(constant(wb::ConstantMatrix::P), load_tile(x, c * segment_size + b * 256, kT, true,
                                                            c * segment_size + rest)),
              w);
    for (int k = 0; k < kT; ++k) q[k * kT + c] = w[k];  // Q[:, c] = row 0 of W_c
  }
  if (blocks > 0) v = mul(constant(wb::ConstantMatrix::P), as_operand(q));  // V = P·Q
  for (std::int64_t col = rest; col < segment_size; col += kT) {
    Matrix a = zeros();
    for (int c = 0; c < kT; ++c)
      for (int r = 0; r < kT; ++r)
        if (col + r < segment_size) a[r * kT + c] = x[c * segment_size + col + r];
    v = add(mul(constant(wb::ConstantMatrix::P), a), v);
  }
  return std::vector<double>(v.begin(), v.begin() + kT);
}

double chained_recurrence(const std::vector<double>& x, int chain_length) {
  std::vector<double> level = x;
  const std::int64_t chunk = static_cast<std::int64_t>(chain_length) * 256;
  do {
    const std::int64_t n = static_cast<std::int64_t>(level.size());
    std::vector<double> next;
    for (std::int64_t first = 0; first < n; first += chunk) {
      Matrix c = zeros();
      for (int r = 0; r < chain_length; ++r)  // C_r = 1·M_r + C_{r−1}
        c = add(mul(constant(wb::ConstantMatrix::ones), load_tile(level, first + r * 256, kT, false,
                                                                  std::min(n, first + chunk))),
                c);
      const Matrix d = mul(as_operand(c), constant(wb::ConstantMatrix::ones));  // C_{R+1} = C_R·1
      for (double e : d)
        if (e != d[0]) return -1e300;  // every element must hold the total
      next.push_back(static_cast<float>(d[0]));  // fp32 partials
    }
    level = next;
  } while (level.size() > 1);
  return level[0];
}

}  // namespace tcu::bench::reduce::cpu
