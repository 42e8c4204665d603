#pragma once
// Verification: compare a result with an FP64 reference under a tolerance derived from the
// types and the depth of the computation, never guessed. NaN and Inf never pass.
//
// Error model (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 3-4): a sum
// computed as a tree of depth d in a type with unit roundoff u has
//     |computed - exact| <= d * u * sum(|x_i|)   (to first order)
// We charge 2u per level, not u, because tensor cores are not documented to round to
// nearest in their internal accumulation (truncation errs by up to 2u). Rounding the result
// to the output type adds u_out * |exact|. With integer inputs and exact partial sums the
// tolerance is zero: the comparison is bit-exact.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include <cuda_runtime.h>

#include "common/data.cuh"  // to_double

namespace tcu {

enum class NumType { fp16, bf16, tf32, fp32, fp64 };

const char* num_type_name(NumType t);
// Unit roundoff: fp16 2^-11, bf16 2^-8, tf32 2^-11, fp32 2^-24, fp64 2^-53.
double unit_roundoff(NumType t);
// Smallest positive subnormal / 2: the absolute error of rounding a tiny value.
double underflow_abs(NumType t);
// ceil(log2(n)) for n >= 1 (0 for n = 1).
int ceil_log2(std::uint64_t n);

struct Tolerance {
  double rel_to_magnitude = 0;  // times the error scale (sum |x|, |A||B|, ...)
  double rel_to_result = 0;     // times |exact| (output rounding)
  double abs = 0;               // absolute slack (underflow of the output type)
  std::string rationale;        // e.g. "depth 9 in fp32, fp16 output"

  double bound(double exact, double magnitude) const {
    return rel_to_magnitude * magnitude + rel_to_result * std::fabs(exact) + abs;
  }
  bool exact() const { return rel_to_magnitude == 0 && rel_to_result == 0 && abs == 0; }
};

// A sum tree of `depth` levels accumulated in `acc`, the result rounded to `out`.
Tolerance tolerance_for_accumulation(int depth, NumType acc, NumType out);
// Same for a sum of n terms combined pairwise (depth ceil(log2 n)).
Tolerance tolerance_for_sum(std::uint64_t n, NumType acc, NumType out);
// Bit-exact comparison (integer-valued inputs whose partial sums stay exact).
Tolerance exact_tolerance();

struct VerifyResult {
  bool pass = true;
  std::size_t count = 0;
  std::size_t mismatches = 0;     // elements outside the bound
  std::size_t non_finite = 0;     // NaN or Inf (poisoned, never written, or overflowed)
  std::int64_t first_bad = -1;    // index of the first failing element
  double got_at_first_bad = 0, want_at_first_bad = 0;
  double max_abs_err = 0;
  double max_rel_err = 0;         // |got - want| / |want| (/ magnitude where want == 0)
  std::string summary() const;    // one line: "PASS max rel 1.2e-7" / "FAIL 3 of 256 ..."
};

// Element-wise comparison of `got` (n values of type T, on the host) with `want`.
// `magnitude` (may be null: then |want| is used) gives each element's error scale.
VerifyResult verify_doubles(const double* got, const double* want, const double* magnitude,
                            std::size_t n, const Tolerance& tol);

// `part`, the check of the elements from index `base` on, folded into `into`: the first failure,
// the counts, the worst errors (checks of pieces of one array, or of two runs of the same kind).
inline void merge_part(VerifyResult& into, const VerifyResult& part, std::int64_t base) {
  if (part.first_bad >= 0 && into.first_bad < 0) {
    into.first_bad = base + part.first_bad;
    into.got_at_first_bad = part.got_at_first_bad;
    into.want_at_first_bad = part.want_at_first_bad;
  }
  into.count += part.count;
  into.mismatches += part.mismatches;
  into.non_finite += part.non_finite;
  into.max_abs_err = std::fmax(into.max_abs_err, part.max_abs_err);
  into.max_rel_err = std::fmax(into.max_rel_err, part.max_rel_err);
  into.pass = into.pass && part.pass;
}

template <class T>
VerifyResult verify(const T* got, const double* want, const double* magnitude, std::size_t n,
                    const Tolerance& tol) {
  VerifyResult r;
  // Convert in chunks of 256 so that 2^28 elements need no 2 GiB temporary.
  double buf[256];
  for (std::size_t base = 0; base < n; base += 256) {
    const std::size_t len = (n - base < 256) ? n - base : 256;
    for (std::size_t i = 0; i < len; ++i) buf[i] = to_double(got[base + i]);
    merge_part(r, verify_doubles(buf, want + base, magnitude ? magnitude + base : nullptr, len, tol),
               static_cast<std::int64_t>(base));
  }
  return r;
}

// Poison: fill with all-ones bytes, a NaN in fp16, bf16, fp32 and fp64, so that an element a
// kernel never writes fails verification.
void poison_host(void* p, std::size_t bytes);
void poison_device(void* d_p, std::size_t bytes, cudaStream_t stream = 0);

}  // namespace tcu
