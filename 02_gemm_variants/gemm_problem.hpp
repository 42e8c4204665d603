#pragma once
// The one interface every step of the GEMM ladder implements.
//
//   C = A · B      A: M×K, row-major, leading dimension lda >= K  (element (i,p) at a[i*lda + p])
//                  B: K×N, row-major, leading dimension ldb >= N  (element (p,j) at b[p*ldb + j])
//                  C: M×N, row-major, fp32, leading dimension ldc >= N
//
// A and B are fp16 (__half) for the fp16 and tensor-core variants and fp32 (the same values,
// converted) for the fp32 variants. C is always fp32 (cublasHgemm, the fp16-output baseline,
// has its own entry point). Any M, N, K >= 1 and any leading dimensions are accepted: kernels
// predicate or zero-fill the edges, and fall back to narrower loads where rows are not
// 16-byte aligned.
#include <cuda_runtime.h>

#include <cstdint>

#include "common/int_math.hpp"  // ceil_div

namespace tcu::gemm {

struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0;
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
};

template <class T>
struct GemmArgs {
  GemmProblem p;
  const T* a = nullptr;
  std::int64_t lda = 0;
  const T* b = nullptr;
  std::int64_t ldb = 0;
  float* c = nullptr;
  std::int64_t ldc = 0;
};

// Packed operands: lda = K, ldb = N, ldc = N.
template <class T>
GemmArgs<T> packed_args(const GemmProblem& p, const T* a, const T* b, float* c) {
  return GemmArgs<T>{p, a, p.k, b, p.n, c, p.n};
}

// How many of the `width` elements starting at `start` lie inside [0, extent): the zero-fill
// arithmetic of every edge tile (0 when the chunk is entirely outside).
__host__ __device__ constexpr int valid_in_chunk(std::int64_t start, std::int64_t extent, int width) {
  return start >= extent ? 0 : (extent - start >= width ? width : static_cast<int>(extent - start));
}

// 16-byte copies (cp.async, uint4 loads) of fp16 rows need every row start 16-byte aligned:
// the base pointer aligned and the leading dimension a multiple of 8 halves.
inline bool rows_allow_16B_copies(const void* base, std::int64_t ld_elements, std::int64_t element_bytes) {
  return reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && (ld_elements * element_bytes) % 16 == 0;
}

// Empty when the arguments are usable; otherwise what is wrong (checked by every launcher).
template <class T>
const char* args_problem(const GemmArgs<T>& g) {
  if (g.p.m < 1 || g.p.n < 1 || g.p.k < 1) return "M, N and K must be at least 1";
  if (g.p.m > INT32_MAX || g.p.n > INT32_MAX || g.p.k > INT32_MAX) return "M, N and K must fit in 32 bits";
  if (g.lda < g.p.k || g.ldb < g.p.n || g.ldc < g.p.n) return "leading dimensions must be >= the row length";
  if (g.a == nullptr || g.b == nullptr || g.c == nullptr) return "null operand";
  return nullptr;
}

}  // namespace tcu::gemm
