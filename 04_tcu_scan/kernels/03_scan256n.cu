// Scan256N (Dakkak et al. §5; docs/algorithms.md, "Scan"): one warp per segment walks its
// 256-element tiles; the running total S = broadcast(R[255]) is the C operand of the next
// tile's A·U + (L·A)·1 + S (fill_fragment: every element equal, so no fragment layout is
// needed). Any segment size: the last tile is padded with zeros; tiles are staged through
// shared memory (any alignment), kAhead tiles at a time so that more bytes are in flight.
// L·A is split into hi + lo (scan_tiles.cuh); above 2^15 its row sums are added in fp32.
#include "04_tcu_scan/kernels/scan_tiles.cuh"
#include "common/int_math.hpp"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"

namespace tcu::detail::scan {
namespace {

// Blocks of 8 independent warps, each with its own slice of shared memory, grid-striding over
// warp-sized work items (one resident wave at most).
constexpr int kWarpKernelWarps = 8;
constexpr int kWarpKernelThreads = kWarpKernelWarps * kWarpSize;
constexpr int kAhead = 4;  // tiles staged per load phase

struct alignas(128) Scan256nSmem {
  __half a[kAhead * kTileElems];  // kAhead consecutive tiles of the segment, zero padded
  float r[kTileElems];
  __half u[kTileElems], l[kTileElems];
  SplitScratch scratch;
};

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kWarpKernelThreads)
    scan256n_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t num_segments,
                    std::int64_t segment_size) {
  __shared__ Scan256nSmem smem[kWarpKernelWarps];
  const int warp = tc::warp_in_block(), lane = tc::lane_id();
  Scan256nSmem& sm = smem[warp];
  tc::write_constant_tile(sm.u, tc::ConstantMatrix::U, lane, kWarpSize);
  tc::write_constant_tile(sm.l, tc::ConstantMatrix::L, lane, kWarpSize, kTile);  // one segment per tile
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * kWarpKernelWarps;
  for (std::int64_t seg = static_cast<std::int64_t>(blockIdx.x) * kWarpKernelWarps + warp; seg < num_segments;
       seg += warps) {
    const __half* x = in + seg * segment_size;
    OutT* y = out + seg * segment_size;
    float carry = 0.0f;
    for (std::int64_t block0 = 0; block0 < segment_size; block0 += kAhead * kTileElems) {
      __syncwarp();
      if (block0 + kAhead * kTileElems <= segment_size && tc::aligned16(x + block0)) {  // 16-byte loads
        for (int v = lane; v < kAhead * kTileElems / tc::kPieceElems; v += kWarpSize)
          reinterpret_cast<uint4*>(sm.a)[v] =
              tc::load_piece<tc::Cache::streaming>(x + block0 + v * tc::kPieceElems, tc::kPieceElems, true).v;
      } else {
        for (int e = lane; e < kAhead * kTileElems; e += kWarpSize)
          sm.a[e] = block0 + e < segment_size ? x[block0 + e] : __float2half(0.0f);
      }
      __syncwarp();
      for (int t = 0; t < kAhead && block0 + t * kTileElems < segment_size; ++t) {
        const std::int64_t base = block0 + t * kTileElems;
        // BEGIN EXERCISE 04.3 Scan256N: the running total S carried in the accumulator C
        // HINT: scan256_tile(a, u, l, carry, r, scratch, lane) computes R = A·U + (L·A)·1 + carry
        // HINT: into sm.r (fp32, row-major). Each lane writes 8 consecutive results of the tile
        // HINT: (tc::store8 stops at the segment's end): inclusive R[e], exclusive R[e − 1] and
        // HINT: the carry for e = 0. Then the carry of the next tile is R[255]; __syncwarp()
        // HINT: before sm.r is overwritten.
        // SIZE: 14 to 18 lines
        scan256_tile(sm.a + t * kTileElems, sm.u, sm.l, carry, sm.r, sm.scratch, lane);  // A·U + (L·A)·1 + S
        {  // each lane writes 8 consecutive results
          const int e0 = lane * tc::kPieceElems;
          float v[tc::kPieceElems];
#pragma unroll
          for (int j = 0; j < tc::kPieceElems; ++j) {
            const int e = e0 + j;
            v[j] = kInclusive ? sm.r[e] : (e == 0 ? carry : sm.r[e - 1]);
          }
          if (base + e0 < segment_size) tc::store8(y + base + e0, v, segment_size - (base + e0));
        }
        carry = sm.r[kTileElems - 1];  // S for the next tile
        __syncwarp();
        // STUB: (void)base; (void)y; (void)carry;
        // END EXERCISE
      }
    }
  }
}

}  // namespace

template <class OutT>
cudaError_t launch_scan256n(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                            bool inclusive, cudaStream_t stream) {
  auto* k = inclusive ? scan256n_kernel<OutT, true> : scan256n_kernel<OutT, false>;
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(k), kWarpKernelThreads,
                                          ceil_div(num_segments, kWarpKernelWarps));  // a warp per segment
  k<<<grid, kWarpKernelThreads, 0, stream>>>(in, out, num_segments, segment_size);
  return cudaGetLastError();
}

template cudaError_t launch_scan256n(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_scan256n(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::scan
