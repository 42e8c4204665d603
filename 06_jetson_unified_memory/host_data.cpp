#include "06_jetson_unified_memory/host_data.hpp"

#include <cmath>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tcu::unified_memory {

int host_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

namespace {
// Chunk t of `parts` equal chunks of [0, n).
std::size_t chunk_begin(std::size_t n, int t, int parts) {
  return static_cast<std::size_t>((static_cast<unsigned __int128>(n) * t) / parts);
}
}  // namespace

void fill_host_parallel(__half* out, std::size_t n, Dist dist, std::uint64_t seed) {
  const int parts = host_threads();
#pragma omp parallel for schedule(static) num_threads(parts)
  for (int t = 0; t < parts; ++t) {
    const std::size_t b = chunk_begin(n, t, parts), e = chunk_begin(n, t + 1, parts);
    fill_host(out + b, e - b, dist, seed, b);
  }
}

SumRef reference_sum_parallel(const __half* x, std::size_t n) {
  const int parts = host_threads();
  std::vector<SumRef> partial(static_cast<std::size_t>(parts));
#pragma omp parallel for schedule(static) num_threads(parts)
  for (int t = 0; t < parts; ++t) {
    const std::size_t b = chunk_begin(n, t, parts), e = chunk_begin(n, t + 1, parts);
    partial[static_cast<std::size_t>(t)] = reference_sum(x + b, e - b);
  }
  Fp64Sum s, a;
  for (const SumRef& p : partial) {
    s.add(p.sum);
    a.add(p.abs_sum);
  }
  return {s.value(), a.value()};
}

double cpu_sum_serial(const __half* x, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += static_cast<double>(__half2float(x[i]));
  return s;
}

double cpu_sum_openmp(const __half* x, std::size_t n) {
  double s = 0;
  const long long count = static_cast<long long>(n);
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (long long i = 0; i < count; ++i) s += static_cast<double>(__half2float(x[i]));
  return s;
}

}  // namespace tcu::unified_memory
