#pragma once
// Seeded input data, identical on host and device.
//
// Element i of a data set is a pure function of (distribution, seed, i): a counter-based
// generator (SplitMix64 finaliser), so the GPU can generate 2^28 elements in place and the
// CPU reference can regenerate any of them without copying the data back.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tcu {

enum class Dist {
  uniform,   // [0, 1), 24 random bits (rounded to the element type)
  normal,    // N(0, 1), Box-Muller
  ones,      // every element 1
  integers,  // integers in [-kIntDistBound, kIntDistBound]: fp32 sums stay exact to 2^24
};

inline constexpr int kIntDistBound = 4;

// "uniform", "normal", "ones", "int" (also accepts "integers").
std::optional<Dist> parse_dist(const std::string& name);
const char* dist_name(Dist d);

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The value of element `index` of the data set (dist, seed), before rounding to the element type.
__host__ __device__ inline double sample_value(Dist dist, std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t h = splitmix64(splitmix64(seed) ^ index);
  switch (dist) {
    case Dist::uniform:
      return static_cast<double>(h >> 40) * (1.0 / 16777216.0);  // 24 bits: exact in float
    case Dist::normal: {
      const double u1 = (static_cast<double>(h >> 32) + 1.0) * (1.0 / 4294967296.0);  // (0, 1]
      const double u2 = static_cast<double>(h & 0xFFFFFFFFull) * (1.0 / 4294967296.0);
      return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    }
    case Dist::ones:
      return 1.0;
    case Dist::integers:
    default:
      return static_cast<double>(static_cast<int>(h % (2 * kIntDistBound + 1)) - kIntDistBound);
  }
}

template <class T>
__host__ __device__ inline T from_double(double v) {
  return static_cast<T>(v);
}
template <>
__host__ __device__ inline __half from_double<__half>(double v) {
  // Through float on host and device alike, so both round the same way.
  return __float2half_rn(static_cast<float>(v));
}

template <class T>
__host__ __device__ inline double to_double(T v) {
  return static_cast<double>(v);
}
template <>
__host__ __device__ inline double to_double<__half>(__half v) {
  return static_cast<double>(__half2float(v));
}

// Fill host memory with elements [offset, offset + n) of the data set.
template <class T>
void fill_host(T* out, std::size_t n, Dist dist, std::uint64_t seed, std::uint64_t offset = 0) {
  for (std::size_t i = 0; i < n; ++i) out[i] = from_double<T>(sample_value(dist, seed, offset + i));
}

// Fill device memory (stream-ordered) with the same elements fill_host would produce.
// Instantiated for __half, float and double. Throws tcu::CudaError on launch errors.
template <class T>
void fill_device(T* d_out, std::size_t n, Dist dist, std::uint64_t seed, cudaStream_t stream = 0,
                 std::uint64_t offset = 0);

}  // namespace tcu
