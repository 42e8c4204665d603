// Scan256 (Dakkak et al. §5; docs/algorithms.md, "Scan256"): one segment of 256 per tile, A
// row-major, R = A·U + (L·A)·1, in the block frame (block_frame.cuh). Shorter segments are
// padded to 32, 64, 128 or 256 elements and L is masked per segment (L[i][k] = 1 iff k < i in
// the same segment), so one tile scans 8, 4, 2 or 1 segments. L·A is split into hi + lo
// (scan_tiles.cuh); above 2^15 its row sums are added in fp32 instead.
#include "04_tcu_scan/kernels/block_frame.cuh"
#include "04_tcu_scan/kernels/scan_tiles.cuh"

namespace tcu::detail::scan {
namespace {

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kBlockThreads, kFrameMinBlocksPerSm)
    scan256_kernel(const __half* __restrict__ in, OutT* __restrict__ out, FrameLayout fl) {
  __shared__ FrameSmem sm;
  const int tid = threadIdx.x, warp = tid / kWarpSize, lane = tid % kWarpSize;
  tc::write_constant_tile(sm.u, tc::ConstantMatrix::U, tid, kBlockThreads);
  tc::write_constant_tile(sm.l, tc::ConstantMatrix::L, tid, kBlockThreads, fl.seg_stride / kTile);
  walk_frame<OutT, kInclusive>(in, out, fl, sm, [&](const BlockTile& bt) {
    const int tiles = static_cast<int>(ceil_div(bt.segs * fl.seg_stride, kTileElems));  // staged tiles
    for (int t = warp; t < tiles; t += kBlockWarps)  // Scan256 on every tile: R = A·U + (L·A)·1
      scan256_tile(sm.a + t * kTileElems, sm.u, sm.l, 0.0f, sm.r + t * kTileElems, sm.scratch[warp], lane);
  });
}

}  // namespace

template <class OutT>
cudaError_t launch_scan256(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                           bool inclusive, cudaStream_t stream) {
  const FrameLayout fl = make_frame_layout(num_segments, segment_size, next_pow2_at_least(segment_size, 2 * kTile));
  return launch_frame<OutT>(scan256_kernel<OutT, true>, scan256_kernel<OutT, false>, inclusive, in, out, fl, stream);
}

template cudaError_t launch_scan256(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_scan256(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::scan
