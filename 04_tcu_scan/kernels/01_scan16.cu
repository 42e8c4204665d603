// Scan16 (Dakkak et al. §5; docs/algorithms.md, "Scan16"): 16 segments of at most 16 per tile,
// A row-major (row = segment), R = A·U. Runs in the block frame (block_frame.cuh): shorter
// segments are padded with zeros in shared memory. No fp32 operand, so no hi/lo split.
#include "04_tcu_scan/kernels/block_frame.cuh"

namespace tcu::detail::scan {
namespace {

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kBlockThreads, kFrameMinBlocksPerSm)
    scan16_kernel(const __half* __restrict__ in, OutT* __restrict__ out, FrameLayout fl) {
  __shared__ FrameSmem sm;
  const int tid = threadIdx.x, warp = tid / kWarpSize;
  tc::write_constant_tile(sm.u, tc::ConstantMatrix::U, tid, kBlockThreads);
  walk_frame<OutT, kInclusive>(in, out, fl, sm, [&](const BlockTile& bt) {
    const int tiles = static_cast<int>(ceil_div(bt.segs * fl.seg_stride, kTileElems));  // staged tiles
    for (int t = warp; t < tiles; t += kBlockWarps) {  // Scan16 on every tile
      const __half* a = sm.a + t * kTileElems;
      const __half* u = sm.u;
      float* r = sm.r + t * kTileElems;
      // BEGIN EXERCISE 04.2 Scan16 on one tile: R = A·U, every row of 16 scanned
      // HINT: a (the tile, row-major, one segment per row) and u (the constant U, row-major) are
      // HINT: in shared memory, leading dimension kTile. Load A as tc::FragA, U as tc::FragBRow,
      // HINT: zero a tc::FragAcc, one mma_sync, store R row-major to r (fp32).
      // SIZE: 8 lines
      tc::FragA fa;
      tc::FragBRow fu;
      tc::FragAcc acc;
      wmma::load_matrix_sync(fa, a, kTile);
      wmma::load_matrix_sync(fu, u, kTile);
      wmma::fill_fragment(acc, 0.0f);
      wmma::mma_sync(acc, fa, fu, acc);
      wmma::store_matrix_sync(r, acc, kTile, wmma::mem_row_major);
      // STUB: (void)a; (void)u; (void)r;
      // END EXERCISE
    }
  });
}

}  // namespace

template <class OutT>
cudaError_t launch_scan16(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                          bool inclusive, cudaStream_t stream) {
  const FrameLayout fl = make_frame_layout(num_segments, segment_size, kTile);
  return launch_frame<OutT>(scan16_kernel<OutT, true>, scan16_kernel<OutT, false>, inclusive, in, out, fl, stream);
}

template cudaError_t launch_scan16(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_scan16(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::scan
