#pragma once
// The host side of lookback.cuh (included by the two kernel files that instantiate it).
#include "05_block_grid/kernels/lookback.cuh"
#include "common/int_math.hpp"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::device {

template <class OutT, ScanOutput kOut, bool kSegmented>
cudaError_t launch_lookback_scan(const __half* in, OutT* out, std::int64_t n, std::int64_t segment_size,
                                 cudaStream_t stream) {
  auto* kernel = lookback_scan_kernel<OutT, kOut, kSegmented>;
  if (cudaError_t e = allow_block_smem(kernel); e != cudaSuccess) return e;
  const std::int64_t tiles = ceil_div(n, kBlockTileElems);
  tc::TempBuffer<unsigned long long> state;  // ticket counter + one status word per tile
  if (cudaError_t e = state.allocate(tiles + 1, stream); e != cudaSuccess) return e;
  if (cudaError_t e = cudaMemsetAsync(state.get(), 0, static_cast<std::size_t>(tiles + 1) * 8, stream);
      e != cudaSuccess)
    return e;
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(kernel), kBlockThreads, tiles, kBlockSmemBytes);
  kernel<<<static_cast<unsigned>(grid), kBlockThreads, kBlockSmemBytes, stream>>>(
      in, out, n, kSegmented ? segment_size : n, state.get(), fixed_point_for(kSegmented ? segment_size : n));
  return cudaGetLastError();
}

}  // namespace tcu::detail::device
