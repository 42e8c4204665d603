#pragma once
// FP64 CPU references. Every GPU result in the tutorial is checked against one of these.
// Sums are compensated (Neumaier), so the reference itself is exact to ~2^-53 of sum(|x|)
// at any length; each result comes with sum(|x|), the scale that bounds rounding errors.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/data.cuh"  // to_double

namespace tcu {

// Compensated (Neumaier) accumulator.
struct Fp64Sum {
  double sum = 0, comp = 0;
  void add(double v) {
    const double t = sum + v;
    comp += (std::fabs(sum) >= std::fabs(v)) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  double value() const { return sum + comp; }
};

struct SumRef {
  double sum = 0;
  double abs_sum = 0;  // sum(|x|): the scale of the rounding error of any summation order
};

template <class T>
SumRef reference_sum(const T* x, std::size_t n) {
  Fp64Sum s, a;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = to_double(x[i]);
    s.add(v);
    a.add(std::fabs(v));
  }
  return {s.value(), a.value()};
}

// Sums of num_segments contiguous segments of segment_size elements each.
template <class T>
void reference_segmented_sum(const T* x, std::int64_t num_segments, std::int64_t segment_size,
                             std::vector<double>& sums, std::vector<double>& abs_sums) {
  if (num_segments < 0 || segment_size < 1) throw std::invalid_argument("reference_segmented_sum: bad sizes");
  sums.assign(num_segments, 0.0);
  abs_sums.assign(num_segments, 0.0);
  for (std::int64_t s = 0; s < num_segments; ++s) {
    const SumRef r = reference_sum(x + s * segment_size, static_cast<std::size_t>(segment_size));
    sums[s] = r.sum;
    abs_sums[s] = r.abs_sum;
  }
}

// Inclusive (x0, x0+x1, ...) or exclusive (0, x0, x0+x1, ...) scan of every segment.
template <class T>
void reference_segmented_scan(const T* x, std::int64_t num_segments, std::int64_t segment_size,
                              bool inclusive, std::vector<double>& out, std::vector<double>& abs_out) {
  if (num_segments < 0 || segment_size < 1) throw std::invalid_argument("reference_segmented_scan: bad sizes");
  const std::size_t n = static_cast<std::size_t>(num_segments * segment_size);
  out.assign(n, 0.0);
  abs_out.assign(n, 0.0);
  for (std::int64_t s = 0; s < num_segments; ++s) {
    Fp64Sum acc, acc_abs;
    for (std::int64_t j = 0; j < segment_size; ++j) {
      const std::size_t i = static_cast<std::size_t>(s * segment_size + j);
      const double v = to_double(x[i]);
      if (inclusive) { acc.add(v); acc_abs.add(std::fabs(v)); }
      out[i] = acc.value();
      abs_out[i] = acc_abs.value();
      if (!inclusive) { acc.add(v); acc_abs.add(std::fabs(v)); }
    }
  }
}

enum class Layout { row_major, col_major };

// Element (r, c) of a matrix stored with leading dimension ld.
inline std::size_t element_index(Layout l, std::size_t r, std::size_t c, std::size_t ld) {
  return l == Layout::row_major ? r * ld + c : c * ld + r;
}

// C = A·B in FP64 (M×K times K×N), C row-major M×N; abs_c = |A|·|B|, the error scale.
// Leading dimensions default to the packed ones (K or M for A, N or K for B).
template <class TA, class TB>
void reference_gemm(const TA* a, Layout la, const TB* b, Layout lb, std::size_t m, std::size_t n,
                    std::size_t k, std::vector<double>& c, std::vector<double>& abs_c,
                    std::size_t lda = 0, std::size_t ldb = 0) {
  if (lda == 0) lda = (la == Layout::row_major) ? k : m;
  if (ldb == 0) ldb = (lb == Layout::row_major) ? n : k;
  c.assign(m * n, 0.0);
  abs_c.assign(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double s = 0, sa = 0;  // products of fp16/fp32 values are exact in double
      for (std::size_t p = 0; p < k; ++p) {
        const double prod = to_double(a[element_index(la, i, p, lda)]) * to_double(b[element_index(lb, p, j, ldb)]);
        s += prod;
        sa += std::fabs(prod);
      }
      c[i * n + j] = s;
      abs_c[i * n + j] = sa;
    }
}

}  // namespace tcu
