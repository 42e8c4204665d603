#pragma once
// Test helpers of chapter 02: seeded operands with padded leading dimensions, the FP64
// reference, and one comparison under the variant's derived tolerance.
#include <cuda_fp16.h>

#include <cstdint>
#include <vector>

#include "02_gemm_variants/gemm_problem.hpp"
#include "02_gemm_variants/gemm_registry.hpp"
#include "common/data.cuh"
#include "common/reference.hpp"
#include "common/verify.hpp"

namespace tcu::gemm::testing {

// Operands of a problem with leading dimensions lda >= K, ldb >= N (padding filled with a
// large value, so that a kernel reading it produces a visibly wrong result).
struct HostOperands {
  GemmProblem p;
  std::int64_t lda = 0, ldb = 0;
  std::vector<__half> a, b;       // padded, row-major
  std::vector<double> ref, mag;   // FP64 C = A·B and |A|·|B|, packed M×N
  double max_mag = 0;
};

inline HostOperands make_operands(const GemmProblem& p, Dist dist, std::uint64_t seed, std::int64_t lda_pad = 0,
                                  std::int64_t ldb_pad = 0) {
  HostOperands h;
  h.p = p;
  h.lda = p.k + lda_pad;
  h.ldb = p.n + ldb_pad;
  const __half pad = __float2half(1000.0f);
  h.a.assign(static_cast<std::size_t>(p.m * h.lda), pad);
  h.b.assign(static_cast<std::size_t>(p.k * h.ldb), pad);
  for (std::int64_t i = 0; i < p.m; ++i) fill_host(h.a.data() + i * h.lda, p.k, dist, seed, i * p.k);
  for (std::int64_t r = 0; r < p.k; ++r) fill_host(h.b.data() + r * h.ldb, p.n, dist, seed + 1, r * p.n);
  std::vector<__half> bt(static_cast<std::size_t>(p.k * p.n));  // Bᵀ: the reference reads it contiguously
  for (std::int64_t r = 0; r < p.k; ++r)
    for (std::int64_t j = 0; j < p.n; ++j) bt[j * p.k + r] = h.b[r * h.ldb + j];
  reference_gemm(h.a.data(), Layout::row_major, bt.data(), Layout::col_major, p.m, p.n, p.k, h.ref, h.mag, h.lda,
                 p.k);
  for (double v : h.mag) h.max_mag = v > h.max_mag ? v : h.max_mag;
  return h;
}

inline std::vector<float> to_float(const std::vector<__half>& x) {
  std::vector<float> f(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) f[i] = __half2float(x[i]);
  return f;
}

// got: M×N with leading dimension ldc (only the M×N part is compared).
template <class T>
VerifyResult compare(const HostOperands& h, const std::vector<T>& got, std::int64_t ldc, Accumulation acc, Dist dist) {
  std::vector<T> packed(static_cast<std::size_t>(h.p.m * h.p.n));
  for (std::int64_t i = 0; i < h.p.m; ++i)
    for (std::int64_t j = 0; j < h.p.n; ++j) packed[i * h.p.n + j] = got[i * ldc + j];
  const Tolerance tol = variant_tolerance(acc, h.p.k, integer_valued(dist), h.max_mag);
  return verify(packed.data(), h.ref.data(), h.mag.data(), packed.size(), tol);
}

}  // namespace tcu::gemm::testing
