// Block-level scan (Dakkak et al. Alg. 7; docs/algorithms.md, "Block-level scan (Alg. 7)") in
// the block frame (block_frame.cuh): every warp scans its tiles with Scan256; after a barrier
// (missing in the paper's released code: the erratum) one warp scans the tile totals on the
// TCU — totals in row 0 of a tile, times Lᵀ (strictly upper) masked per segment, gives every
// tile the exclusive prefix of its segment — and the write-out adds it. Segments of at most 256
// are Scan256 with a masked L (no tile totals). The tile totals are split into hi + lo like L·A
// (scan_tiles.cuh); a total above 2^15 has its prefixes summed in fp32 on the CUDA cores.
#include "04_tcu_scan/kernels/block_frame.cuh"
#include "04_tcu_scan/kernels/scan_tiles.cuh"

namespace tcu::detail::scan {
namespace {

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kBlockThreads, kFrameMinBlocksPerSm)
    scan256_block_kernel(const __half* __restrict__ in, OutT* __restrict__ out, FrameLayout fl) {
  __shared__ FrameSmem sm;
  const int tid = threadIdx.x, warp = tid / kWarpSize, lane = tid % kWarpSize;
  tc::write_constant_tile(sm.u, tc::ConstantMatrix::U, tid, kBlockThreads);
  tc::write_constant_tile(sm.l, tc::ConstantMatrix::L, tid, kBlockThreads,
                          fl.seg_stride >= kTileElems ? kTile : fl.seg_stride / kTile);
  // x = Lᵀ masked per segment of m tiles: x[k][j] = 1 iff k < j, both tiles in the same segment.
  const int m = fl.seg_stride / kTileElems > 0 ? fl.seg_stride / kTileElems : 1;
  for (int e = tid; e < kTileElems; e += kBlockThreads)
    sm.x[e] = tc::constant_half(tc::ConstantMatrix::L, e % kTile, e / kTile, m);
  walk_frame<OutT, kInclusive>(in, out, fl, sm, [&](const BlockTile& bt) {
    const int tiles = static_cast<int>(ceil_div(bt.segs * fl.seg_stride, kTileElems));  // staged tiles
    for (int t = warp; t < tiles; t += kBlockWarps)  // Alg. 7 line 1: every tile by Scan256
      scan256_tile(sm.a + t * kTileElems, sm.u, sm.l, 0.0f, sm.r + t * kTileElems, sm.scratch[warp], lane);
    if (fl.seg_stride / kTileElems > 1) {  // several tiles per segment
      __syncthreads();  // Alg. 7's barrier (missing in the released code): every tile total is stored
      if (warp == 0) {  // one warp: the tile prefixes = (totals in row 0) · x
        SplitScratch& s = sm.scratch[0];
        for (int e = lane; e < kTileElems; e += kWarpSize)  // row 0: the tile totals (last elements)
          s.f[e] = (e < tiles) ? sm.r[e * kTileElems + kTileElems - 1] : 0.0f;
        __syncwarp();
        tc::FragBRow fx;
        tc::FragAcc acc;
        wmma::load_matrix_sync(fx, sm.x, kTile);
        wmma::fill_fragment(acc, 0.0f);
        if (tc::mma_split_operand(acc, s.f, fx, s.hi, s.lo, lane)) {
          wmma::store_matrix_sync(s.f, acc, kTile, wmma::mem_row_major);
          __syncwarp();
          if (lane < kFrameTiles) sm.tile_prefix[lane] = s.f[lane];
        } else if (lane < kFrameTiles) {  // a tile total above 2^15: row 0 of the product in fp32
          sm.tile_prefix[lane] = times_tile_fp32_at(s.f, sm.x, lane);
        }
      }
    }
  });  // the write-out adds each tile's prefix
}

}  // namespace

template <class OutT>
cudaError_t launch_scan256_block(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                                 bool inclusive, cudaStream_t stream) {
  const int stride = segment_size <= kTileElems ? next_pow2_at_least(segment_size, 2 * kTile)
                                                : static_cast<int>(round_up(segment_size, kTileElems));
  const FrameLayout fl = make_frame_layout(num_segments, segment_size, stride);
  return launch_frame<OutT>(scan256_block_kernel<OutT, true>, scan256_block_kernel<OutT, false>, inclusive, in, out, fl, stream);
}

template cudaError_t launch_scan256_block(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_scan256_block(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::scan
