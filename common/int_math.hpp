#pragma once
// Integer helpers every layer uses, on the host and (when compiled by nvcc) on the device.
#include <cstdint>

#if defined(__CUDACC__)
#define TCU_HOST_DEVICE __host__ __device__
#else
#define TCU_HOST_DEVICE
#endif

namespace tcu {

// ceil(a / b) for a >= 0, b > 0: the tiles, rounds or chunks needed to cover a elements.
TCU_HOST_DEVICE constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// a rounded up to a multiple of b (a >= 0, b > 0).
TCU_HOST_DEVICE constexpr std::int64_t round_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }

// Is v a power of two (v >= 1)?
TCU_HOST_DEVICE constexpr bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace tcu
