// Scan16 (Dakkak et al. §5): 16 segments of 16 per tile, A row-major (row = segment), R = A·U.
// Segments shorter than 16 are padded with zeros in shared memory (block_pieces.cuh).
#include "04_tcu_scan/block_pieces.cuh"
#include "04_tcu_scan/scan_kernels.hpp"

namespace tcu::scan_detail {
namespace {

struct Scan16 {
  static __device__ void init(BlockSmem& sm, const PieceLayout&, int tid) {
    build_u_and_masked_l(sm.u, sm.l, 1, tid);
  }
  static __device__ void scan_piece(BlockSmem& sm, const PieceLayout& pl, int segs, int, int warp, int) {
    const int tiles = (segs * pl.seg_stride + kTileElems - 1) / kTileElems;
    for (int t = warp; t < tiles; t += kBlockWarps)
      scan16_tile(sm.a + t * kTileElems, sm.u, sm.r + t * kTileElems);
  }
};

}  // namespace

template <class OutT>
void launch_scan16(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                   bool inclusive, cudaStream_t stream) {
  const PieceLayout pl = make_piece_layout(num_segments, segment_size, kTile);
  launch_block_scan<Scan16>(in, out, pl, inclusive, stream);
}

template void launch_scan16<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template void launch_scan16<float>(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::scan_detail
