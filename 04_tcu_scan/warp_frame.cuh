#pragma once
// What the two warp-level algorithms (scan256n.cu, scan16n.cu) share: blocks of 8 independent
// warps, each with its own slice of shared memory (declared by each kernel), walking warp-sized
// work items.
#include <cstdint>

#include "04_tcu_scan/scan_tiles.cuh"

namespace tcu::scan_detail {

inline constexpr int kWarpBlockWarps = 8;


// Blocks for `warps` warp-sized work items: one resident wave at most (block_pieces.cuh).
int resident_grid_size(const void* kernel, int threads, std::int64_t items);
inline int warp_grid_size(const void* kernel, std::int64_t warps) {
  return resident_grid_size(kernel, kWarpBlockWarps * kWarpSize, (warps + kWarpBlockWarps - 1) / kWarpBlockWarps);
}

__device__ inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15) == 0; }

// Eight consecutive results of one lane to dst: 16-byte stores where dst is aligned and all
// eight are inside [0, valid), scalar stores otherwise.
template <class OutT>
__device__ inline void store8(OutT* dst, const float (&v)[8], std::int64_t valid);

template <class OutT>
__device__ inline OutT warp_to_out(float v) {
  if constexpr (sizeof(OutT) == 2)
    return __float2half_rn(v);
  else
    return v;
}

template <class OutT>
__device__ inline void store8(OutT* dst, const float (&v)[8], std::int64_t valid) {
  if (valid >= 8 && aligned16(dst)) {
    alignas(16) OutT o[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) o[j] = warp_to_out<OutT>(v[j]);
#pragma unroll
    for (int h = 0; h < static_cast<int>(8 * sizeof(OutT) / 16); ++h)
      __stcs(reinterpret_cast<uint4*>(dst) + h, reinterpret_cast<const uint4*>(o)[h]);
  } else {
    for (int j = 0; j < 8 && j < valid; ++j) dst[j] = warp_to_out<OutT>(v[j]);
  }
}

}  // namespace tcu::scan_detail
