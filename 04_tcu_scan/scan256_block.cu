// Block-level scan (Dakkak et al. Alg. 7): every warp scans its 256-element tiles with Scan256;
// after a barrier (missing in the paper's code: the erratum) one warp scans the tile totals
// with the TCU — totals in row 0 of a tile, times a strictly upper triangle masked per segment,
// gives each tile the exclusive prefix of its segment — and the write-out adds it. Segments
// longer than a piece (4096) are walked piece by piece with a carry; segments of at most 256
// are Scan256 with a masked L (no tile totals needed).
#include "04_tcu_scan/block_pieces.cuh"
#include "04_tcu_scan/scan_kernels.hpp"

namespace tcu::scan_detail {
namespace {

struct Scan256Block {
  static __device__ int tiles_per_segment(const PieceLayout& pl) { return pl.seg_stride / kTileElems; }

  static __device__ void init(BlockSmem& sm, const PieceLayout& pl, int tid) {
    build_u_and_masked_l(sm.u, sm.l, pl.seg_stride >= kTileElems ? kTile : pl.seg_stride / kTile, tid);
    if (tid < kTileElems) {  // x[k][j] = 1 iff k < j, both tiles in the same segment
      const int k = tid / kTile, j = tid % kTile, m = tiles_per_segment(pl) > 0 ? tiles_per_segment(pl) : 1;
      sm.x[tid] = __float2half((k < j && k / m == j / m) ? 1.0f : 0.0f);
    }
  }

  static __device__ void scan_piece(BlockSmem& sm, const PieceLayout& pl, int segs, int, int warp, int lane) {
    const int tiles = (segs * pl.seg_stride + kTileElems - 1) / kTileElems;
    for (int t = warp; t < tiles; t += kBlockWarps)
      scan256_tile(sm.a + t * kTileElems, sm.u, sm.l, 0.0f, sm.r + t * kTileElems, sm.scratch[warp], lane);
    if (tiles_per_segment(pl) <= 1) return;
    __syncthreads();  // Alg. 7's missing barrier: every tile total is in shared memory
    if (warp == 0) {
      WarpScratch& s = sm.scratch[0];
      for (int e = lane; e < kTileElems; e += kWarpSize)  // row 0: the tile totals (last element)
        s.f[e] = (e < tiles) ? sm.r[e * kTileElems + kTileElems - 1] : 0.0f;
      FragB fx;
      FragC acc;
      wm::load_matrix_sync(fx, sm.x, kTile);
      wm::fill_fragment(acc, 0.0f);
      mma_split_operand(acc, s, fx, lane);
      wm::store_matrix_sync(s.f, acc, kTile, wm::mem_row_major);
      __syncwarp();
      if (lane < kPieceTiles) sm.tile_prefix[lane] = s.f[lane];
    }
  }
};

}  // namespace

template <class OutT>
void launch_scan256_block(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                          bool inclusive, cudaStream_t stream) {
  const int stride = segment_size <= kTileElems
                         ? next_pow2_at_least(segment_size, 2 * kTile)
                         : static_cast<int>((segment_size + kTileElems - 1) / kTileElems * kTileElems);
  const PieceLayout pl = make_piece_layout(num_segments, segment_size, stride);
  launch_block_scan<Scan256Block>(in, out, pl, inclusive, stream);
}

template void launch_scan256_block<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template void launch_scan256_block<float>(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::scan_detail
