// Scan256N (Dakkak et al. §5): one warp per segment walks its 256-element tiles; the running
// total S = broadcast(R[255]) is the C operand of the next tile's A·U + (L·A)·1 + S
// (fill_fragment: every element equal, so no fragment layout is needed). Any segment size: the
// last tile is padded with zeros; tiles are staged through shared memory (any alignment), and
// kAhead tiles at a time so that more bytes are in flight.
#include "04_tcu_scan/scan_kernels.hpp"
#include "04_tcu_scan/warp_frame.cuh"

namespace tcu::scan_detail {
namespace {

constexpr int kAhead = 4;  // tiles staged per load phase

struct alignas(128) Scan256nSmem {
  __half a[kAhead * kTileElems];  // kAhead consecutive tiles of the segment, zero padded
  float r[kTileElems];
  __half u[kTileElems], l[kTileElems];
  WarpScratch scratch;
};

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kWarpBlockWarps * kWarpSize)
    scan256n_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t num_segments,
                    std::int64_t segment_size) {
  __shared__ Scan256nSmem smem[kWarpBlockWarps];
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  Scan256nSmem& sm = smem[warp];
  for (int e = lane; e < kTileElems; e += kWarpSize) build_u_and_masked_l(sm.u, sm.l, kTile, e);
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * kWarpBlockWarps;
  for (std::int64_t seg = static_cast<std::int64_t>(blockIdx.x) * kWarpBlockWarps + warp; seg < num_segments;
       seg += warps) {
    const __half* x = in + seg * segment_size;
    OutT* y = out + seg * segment_size;
    float carry = 0.0f;
    for (std::int64_t block0 = 0; block0 < segment_size; block0 += kAhead * kTileElems) {
      __syncwarp();
      if (block0 + kAhead * kTileElems <= segment_size && aligned16(x + block0)) {  // 16-byte loads
        for (int v = lane; v < kAhead * kTileElems / 8; v += kWarpSize)
          reinterpret_cast<uint4*>(sm.a)[v] = __ldcs(reinterpret_cast<const uint4*>(x + block0) + v);
      } else {
        for (int e = lane; e < kAhead * kTileElems; e += kWarpSize)
          sm.a[e] = block0 + e < segment_size ? x[block0 + e] : __float2half(0.0f);
      }
      __syncwarp();
      for (int t = 0; t < kAhead && block0 + t * kTileElems < segment_size; ++t) {
        const std::int64_t base = block0 + t * kTileElems;
        scan256_tile(sm.a + t * kTileElems, sm.u, sm.l, carry, sm.r, sm.scratch, lane);  // A·U + (L·A)·1 + S
        {  // each lane writes 8 consecutive results
          const int e0 = lane * 8;
          float v[8];
#pragma unroll
          for (int j = 0; j < 8; ++j) {
            const int e = e0 + j;
            v[j] = kInclusive ? sm.r[e] : (e == 0 ? carry : sm.r[e - 1]);
          }
          if (base + e0 < segment_size) store8(y + base + e0, v, segment_size - (base + e0));
        }
        carry = sm.r[kTileElems - 1];  // S for the next tile
        __syncwarp();
      }
    }
  }
}

}  // namespace

template <class OutT>
void launch_scan256n(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                     bool inclusive, cudaStream_t stream) {
  auto* k = inclusive ? scan256n_kernel<OutT, true> : scan256n_kernel<OutT, false>;
  const int grid = warp_grid_size(reinterpret_cast<const void*>(k), num_segments);
  k<<<grid, kWarpBlockWarps * kWarpSize, 0, stream>>>(in, out, num_segments, segment_size);
}

template void launch_scan256n<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template void launch_scan256n<float>(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::scan_detail
