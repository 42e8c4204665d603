// Scan16N (Dakkak et al. Alg. 5): one warp scans 16 segments side by side. Step t loads the
// tile whose row r is elements [16t, 16t + 16) of segment r (the paper's leading dimension 16N;
// here staged through shared memory, so any segment size and alignment work), computes
// R = A·U + S, and S for the next step is the last column of R broadcast along each row.
// The broadcast goes through shared memory: WMMA fragment layouts are not documented.
// Loads run kSteps steps ahead (a 16 × 64 block per warp) so that more bytes are in flight.
#include "04_tcu_scan/scan_kernels.hpp"
#include "04_tcu_scan/warp_frame.cuh"

namespace tcu::scan_detail {
namespace {

constexpr int kSteps = 4;                // tiles staged per load phase
constexpr int kCols = kSteps * kTile;    // 64 columns: the staged block's leading dimension
static_assert(kCols % 8 == 0, "WMMA ldm for __half must be a multiple of 8");

struct alignas(128) Scan16nSmem {
  __half a[kTile * kCols];  // 16 segments × 64 columns, zero padded
  float r[kTileElems];      // R of the current step
  float c[kTileElems];      // S: the carry tile
  __half u[kTileElems], l[kTileElems];
};

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kWarpBlockWarps * kWarpSize)
    scan16n_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t num_segments,
                   std::int64_t segment_size) {
  __shared__ Scan16nSmem smem[kWarpBlockWarps];
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  Scan16nSmem& sm = smem[warp];
  for (int e = lane; e < kTileElems; e += kWarpSize) build_u_and_masked_l(sm.u, sm.l, kTile, e);
  const std::int64_t groups = (num_segments + kTile - 1) / kTile;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * kWarpBlockWarps;
  for (std::int64_t g = static_cast<std::int64_t>(blockIdx.x) * kWarpBlockWarps + warp; g < groups; g += warps) {
    const std::int64_t seg0 = g * kTile;
    for (int e = lane; e < kTileElems; e += kWarpSize) sm.c[e] = 0.0f;  // S = 0
    for (std::int64_t block0 = 0; block0 < segment_size; block0 += kCols) {
      __syncwarp();
      for (int v = lane; v < kTile * kCols / 8; v += kWarpSize) {  // row = segment, 64 columns of it
        const int row = v / (kCols / 8), c8 = (v % (kCols / 8)) * 8;
        const std::int64_t seg = seg0 + row, col = block0 + c8;
        const __half* src = in + seg * segment_size + col;
        __half* dst = sm.a + row * kCols + c8;
        if (seg < num_segments && col + 8 <= segment_size && aligned16(src)) {
          *reinterpret_cast<uint4*>(dst) = __ldcs(reinterpret_cast<const uint4*>(src));  // 16-byte load
        } else {
          for (int j = 0; j < 8; ++j)
            dst[j] = (seg < num_segments && col + j < segment_size) ? src[j] : __float2half(0.0f);
        }
      }
      for (int step = 0; step < kSteps && block0 + step * kTile < segment_size; ++step) {
        const std::int64_t col0 = block0 + step * kTile;
        __syncwarp();
        FragA fa;
        FragB fu;
        FragC acc;
        wm::load_matrix_sync(fa, sm.a + step * kTile, kCols);
        wm::load_matrix_sync(fu, sm.u, kTile);
        wm::load_matrix_sync(acc, sm.c, kTile, wm::mem_row_major);  // C = S
        wm::mma_sync(acc, fa, fu, acc);                              // R = A·U + S
        wm::store_matrix_sync(sm.r, acc, kTile, wm::mem_row_major);
        __syncwarp();
        {  // lane: half a row, 8 consecutive results of one segment
          const int row = lane / 2, c0 = (lane % 2) * 8;
          const std::int64_t seg = seg0 + row, col = col0 + c0;
          float v[8];
#pragma unroll
          for (int j = 0; j < 8; ++j) {
            const int e = row * kTile + c0 + j;
            v[j] = kInclusive ? sm.r[e] : (c0 + j == 0 ? sm.c[e] : sm.r[e - 1]);
          }
          if (seg < num_segments && col < segment_size)
            store8(out + seg * segment_size + col, v, segment_size - col);
        }
        __syncwarp();
        for (int e = lane; e < kTileElems; e += kWarpSize) sm.c[e] = sm.r[(e / kTile) * kTile + kTile - 1];
      }
    }
  }
}

}  // namespace

template <class OutT>
void launch_scan16n(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                    bool inclusive, cudaStream_t stream) {
  auto* k = inclusive ? scan16n_kernel<OutT, true> : scan16n_kernel<OutT, false>;
  const int grid = warp_grid_size(reinterpret_cast<const void*>(k), (num_segments + kTile - 1) / kTile);
  k<<<grid, kWarpBlockWarps * kWarpSize, 0, stream>>>(in, out, num_segments, segment_size);
}

template void launch_scan16n<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template void launch_scan16n<float>(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::scan_detail
