// Scan256 (Dakkak et al. §5; docs/algorithms.md, "Scan"): one segment of 256 per tile, A
// row-major, R = A·U + (L·A)·1. Shorter segments are padded to 32, 64, 128 or 256 elements and
// L is masked per segment (L[i][k] = 1 iff k < i within the same segment), so one tile scans
// 8, 4, 2 or 1 segments. L·A is split into hi + lo (scan_tiles.cuh); above 2^15 its row sums
// are added in fp32 instead.
#include "04_tcu_scan/kernels/block_tiles.cuh"
#include "04_tcu_scan/kernels/launchers.hpp"

namespace tcu::detail::scan {
namespace {

struct Scan256 {
  static __device__ void init(BlockSmem& sm, const SlabLayout& sl, int tid) {
    tc::write_constant_tile(sm.u, tc::ConstantMatrix::U, tid, kBlockThreads);
    tc::write_constant_tile(sm.l, tc::ConstantMatrix::L, tid, kBlockThreads, sl.seg_stride / kTile);
  }
  static __device__ void scan_slab(BlockSmem& sm, const SlabLayout& sl, int segs, int, int warp, int lane) {
    const int tiles = static_cast<int>(ceil_div(segs * sl.seg_stride, kTileElems));
    for (int t = warp; t < tiles; t += kBlockWarps)  // R = A·U + (L·A)·1
      scan256_tile(sm.a + t * kTileElems, sm.u, sm.l, 0.0f, sm.r + t * kTileElems, sm.scratch[warp], lane);
  }
};

}  // namespace

template <class OutT>
cudaError_t launch_scan256(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                           bool inclusive, cudaStream_t stream) {
  const SlabLayout sl = make_slab_layout(num_segments, segment_size, next_pow2_at_least(segment_size, 2 * kTile));
  return launch_block_scan<Scan256>(in, out, sl, inclusive, stream);
}

TCU_SCAN_INSTANTIATE_LAUNCHER(launch_scan256);

}  // namespace tcu::detail::scan
