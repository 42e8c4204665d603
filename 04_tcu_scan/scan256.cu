// Scan256 (Dakkak et al. §5): one segment of 256 per tile, A row-major, R = A·U + (L·A)·1.
// Shorter segments are padded to 32, 64, 128 or 256 elements and L is masked per segment
// (L[i][k] = 1 iff k < i within the same segment), so one tile scans 8, 4, 2 or 1 segments.
#include "04_tcu_scan/block_pieces.cuh"
#include "04_tcu_scan/scan_kernels.hpp"

namespace tcu::scan_detail {
namespace {

struct Scan256 {
  static __device__ void init(BlockSmem& sm, const PieceLayout& pl, int tid) {
    build_u_and_masked_l(sm.u, sm.l, pl.seg_stride / kTile, tid);
  }
  static __device__ void scan_piece(BlockSmem& sm, const PieceLayout& pl, int segs, int, int warp, int lane) {
    const int tiles = (segs * pl.seg_stride + kTileElems - 1) / kTileElems;
    for (int t = warp; t < tiles; t += kBlockWarps)
      scan256_tile(sm.a + t * kTileElems, sm.u, sm.l, 0.0f, sm.r + t * kTileElems, sm.scratch[warp], lane);
  }
};

}  // namespace

template <class OutT>
void launch_scan256(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                    bool inclusive, cudaStream_t stream) {
  const PieceLayout pl = make_piece_layout(num_segments, segment_size, next_pow2_at_least(segment_size, 2 * kTile));
  launch_block_scan<Scan256>(in, out, pl, inclusive, stream);
}

template void launch_scan256<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template void launch_scan256<float>(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::scan_detail
