#include <cstdio>
#include <sstream>

#include "common/check.cuh"
#include "common/verify.hpp"

namespace tcu {

const char* num_type_name(NumType t) {
  switch (t) {
    case NumType::fp16: return "fp16";
    case NumType::bf16: return "bf16";
    case NumType::tf32: return "tf32";
    case NumType::fp32: return "fp32";
    case NumType::fp64: return "fp64";
  }
  return "?";
}

double unit_roundoff(NumType t) {
  switch (t) {
    case NumType::fp16: return std::ldexp(1.0, -11);
    case NumType::bf16: return std::ldexp(1.0, -8);
    case NumType::tf32: return std::ldexp(1.0, -11);
    case NumType::fp32: return std::ldexp(1.0, -24);
    case NumType::fp64: return std::ldexp(1.0, -53);
  }
  return 0;
}

double underflow_abs(NumType t) {
  switch (t) {
    case NumType::fp16: return std::ldexp(1.0, -25);   // subnormal spacing 2^-24
    case NumType::bf16: return std::ldexp(1.0, -134);  // 2^-133
    case NumType::tf32: return std::ldexp(1.0, -150);  // fp32's 2^-149
    case NumType::fp32: return std::ldexp(1.0, -150);
    case NumType::fp64: return std::ldexp(1.0, -1075);
  }
  return 0;
}

int ceil_log2(std::uint64_t n) {
  int d = 0;
  while (d < 64 && (std::uint64_t(1) << d) < n) ++d;
  return d;
}

Tolerance tolerance_for_accumulation(int depth, NumType acc, NumType out) {
  Tolerance t;
  const int d = depth < 1 ? 1 : depth;
  t.rel_to_magnitude = 2.0 * d * unit_roundoff(acc);
  if (out != acc && unit_roundoff(out) > unit_roundoff(acc)) t.rel_to_result = unit_roundoff(out);
  t.abs = underflow_abs(out);
  std::ostringstream os;
  os << "depth " << d << " in " << num_type_name(acc) << ", " << num_type_name(out) << " output";
  t.rationale = os.str();
  return t;
}

Tolerance tolerance_for_sum(std::uint64_t n, NumType acc, NumType out) {
  return tolerance_for_accumulation(ceil_log2(n), acc, out);
}

Tolerance exact_tolerance() {
  Tolerance t;
  t.rationale = "bit-exact";
  return t;
}

VerifyResult verify_doubles(const double* got, const double* want, const double* magnitude,
                            std::size_t n, const Tolerance& tol) {
  VerifyResult r;
  r.count = n;
  for (std::size_t i = 0; i < n; ++i) {
    const double g = got[i], w = want[i];
    const double mag = magnitude ? magnitude[i] : std::fabs(w);
    bool bad = false;
    if (!std::isfinite(g)) {
      ++r.non_finite;
      bad = true;
    } else {
      const double err = std::fabs(g - w);
      const double denom = (w != 0) ? std::fabs(w) : mag;
      const double rel = (err == 0) ? 0.0 : (denom > 0 ? err / denom : INFINITY);
      r.max_abs_err = std::fmax(r.max_abs_err, err);
      r.max_rel_err = std::fmax(r.max_rel_err, rel);
      if (!(err <= tol.bound(w, mag))) {
        ++r.mismatches;
        bad = true;
      }
    }
    if (bad && r.first_bad < 0) {
      r.first_bad = static_cast<std::int64_t>(i);
      r.got_at_first_bad = g;
      r.want_at_first_bad = w;
    }
  }
  r.pass = (r.mismatches == 0 && r.non_finite == 0);
  return r;
}

std::string VerifyResult::summary() const {
  char buf[256];
  if (pass) {
    std::snprintf(buf, sizeof buf, "PASS (%zu values, max abs err %.3g, max rel err %.3g)", count,
                  max_abs_err, max_rel_err);
  } else {
    std::snprintf(buf, sizeof buf,
                  "FAIL (%zu of %zu outside tolerance, %zu NaN/Inf; first at %lld: got %.9g, want %.9g)",
                  mismatches, count, non_finite, static_cast<long long>(first_bad), got_at_first_bad,
                  want_at_first_bad);
  }
  return buf;
}

void poison_host(void* p, std::size_t bytes) { std::memset(p, 0xFF, bytes); }

void poison_device(void* d_p, std::size_t bytes, cudaStream_t stream) {
  TCU_CUDA_CHECK(cudaMemsetAsync(d_p, 0xFF, bytes, stream));
}

}  // namespace tcu
