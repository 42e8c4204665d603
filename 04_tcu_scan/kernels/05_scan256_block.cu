// Block-level scan (Dakkak et al. Alg. 7; docs/algorithms.md, "Scan"): every warp scans its
// 256-element tiles with Scan256; after a barrier (missing in the paper's code: the erratum)
// one warp scans the tile totals with the TCU — totals in row 0 of a tile, times Lᵀ (a strictly
// upper triangle) masked per segment, gives each tile the exclusive prefix of its segment —
// and the write-out adds it. Segments longer than a slab (4096) are walked slab by slab with a
// carry; segments of at most 256 are Scan256 with a masked L (no tile totals needed).
// Two fp32 operands are split into hi + lo: L·A inside each tile (scan_tiles.cuh) and the tile
// totals; a tile total above 2^15 has its prefixes summed in fp32 on the CUDA cores instead.
#include "04_tcu_scan/kernels/block_tiles.cuh"
#include "04_tcu_scan/kernels/launchers.hpp"

namespace tcu::detail::scan {
namespace {

struct Scan256Block {
  static __device__ int tiles_per_segment(const SlabLayout& sl) { return sl.seg_stride / kTileElems; }

  static __device__ void init(BlockSmem& sm, const SlabLayout& sl, int tid) {
    tc::write_constant_tile(sm.u, tc::ConstantMatrix::U, tid, kBlockThreads);
    tc::write_constant_tile(sm.l, tc::ConstantMatrix::L, tid, kBlockThreads,
                            sl.seg_stride >= kTileElems ? kTile : sl.seg_stride / kTile);
    // x = Lᵀ masked per segment of m tiles: x[k][j] = 1 iff k < j, both tiles in the same segment.
    const int m = tiles_per_segment(sl) > 0 ? tiles_per_segment(sl) : 1;
    for (int e = tid; e < kTileElems; e += kBlockThreads)
      sm.x[e] = tc::constant_half(tc::ConstantMatrix::L, e % kTile, e / kTile, m);
  }

  static __device__ void scan_slab(BlockSmem& sm, const SlabLayout& sl, int segs, int, int warp, int lane) {
    const int tiles = static_cast<int>(ceil_div(segs * sl.seg_stride, kTileElems));
    for (int t = warp; t < tiles; t += kBlockWarps)  // Alg. 7 line 1: every tile by Scan256
      scan256_tile(sm.a + t * kTileElems, sm.u, sm.l, 0.0f, sm.r + t * kTileElems, sm.scratch[warp], lane);
    if (tiles_per_segment(sl) <= 1) return;
    __syncthreads();  // Alg. 7's missing barrier: every tile total is in shared memory
    if (warp == 0) {  // the tile prefixes: (totals in row 0) · x
      SplitScratch& s = sm.scratch[0];
      for (int e = lane; e < kTileElems; e += kWarpSize)  // row 0: the tile totals (last element)
        s.f[e] = (e < tiles) ? sm.r[e * kTileElems + kTileElems - 1] : 0.0f;
      __syncwarp();
      tc::FragBRow fx;
      tc::FragAcc acc;
      wmma::load_matrix_sync(fx, sm.x, kTile);
      wmma::fill_fragment(acc, 0.0f);
      if (tc::mma_split_operand(acc, s.f, fx, s.hi, s.lo, lane)) {
        wmma::store_matrix_sync(s.f, acc, kTile, wmma::mem_row_major);
        __syncwarp();
        if (lane < kSlabTiles) sm.tile_prefix[lane] = s.f[lane];
      } else if (lane < kSlabTiles) {  // a tile total above 2^15: row 0 of the product in fp32
        sm.tile_prefix[lane] = times_tile_fp32_at(s.f, sm.x, lane);
      }
    }
  }
};

}  // namespace

template <class OutT>
cudaError_t launch_scan256_block(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                                 bool inclusive, cudaStream_t stream) {
  const int stride = segment_size <= kTileElems ? next_pow2_at_least(segment_size, 2 * kTile)
                                                : static_cast<int>(round_up(segment_size, kTileElems));
  const SlabLayout sl = make_slab_layout(num_segments, segment_size, stride);
  return launch_block_scan<Scan256Block>(in, out, sl, inclusive, stream);
}

TCU_SCAN_INSTANTIATE_LAUNCHER(launch_scan256_block);

}  // namespace tcu::detail::scan
