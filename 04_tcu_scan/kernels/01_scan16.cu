// Scan16 (Dakkak et al. §5; docs/algorithms.md, "Scan"): 16 segments of 16 per tile, A
// row-major (row = segment), R = A·U. Segments shorter than 16 are padded with zeros in shared
// memory (block_tiles.cuh). No fp32 operand, so no hi/lo split.
#include "04_tcu_scan/kernels/block_tiles.cuh"
#include "04_tcu_scan/kernels/launchers.hpp"

namespace tcu::detail::scan {
namespace {

struct Scan16 {
  static __device__ void init(BlockSmem& sm, const SlabLayout&, int tid) {
    tc::write_constant_tile(sm.u, tc::ConstantMatrix::U, tid, kBlockThreads);
  }
  static __device__ void scan_slab(BlockSmem& sm, const SlabLayout& sl, int segs, int, int warp, int) {
    const int tiles = static_cast<int>(ceil_div(segs * sl.seg_stride, kTileElems));
    for (int t = warp; t < tiles; t += kBlockWarps)
      scan16_tile(sm.a + t * kTileElems, sm.u, sm.r + t * kTileElems);  // R = A·U
  }
};

}  // namespace

template <class OutT>
cudaError_t launch_scan16(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                          bool inclusive, cudaStream_t stream) {
  const SlabLayout sl = make_slab_layout(num_segments, segment_size, kTile);
  return launch_block_scan<Scan16>(in, out, sl, inclusive, stream);
}

TCU_SCAN_INSTANTIATE_LAUNCHER(launch_scan16);

}  // namespace tcu::detail::scan
