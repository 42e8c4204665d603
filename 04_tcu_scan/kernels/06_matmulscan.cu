// MatMulScan (Zouzias & McColl, Euro-Par 2023; docs/algorithms.md, "MatMulScan"), s = 16, on the
// GPU (the paper has none), in the block frame (block_frame.cuh): a segment padded to n = 16^k
// elements (k = 1, 2, 3: 16, 256 or 4096 in shared memory) is scanned by
//   up-sweep   t = 0 … k−1: y = x[16^t − 1 :: 16^t], every group of 16 → its inclusive prefix
//              sums (group · U: the row form of L_s · group), 16 groups per MMA tile;
//   down-sweep t = k−1 … 1: y = x[16^t − 1 :: 16^(t−1)], every group of 16 gets its first
//              element added to the others (group · B_sᵀ, B_s = identity with column 0 ones).
// Depth 2k − 1 (bench/scan_model.hpp counts the products). Longer segments: block tile by block
// tile with a carry. Levels after the first read fp32 partial sums, split into fp16 hi + lo (two
// MMAs per tile); a tile with a partial sum above 2^15 is multiplied in fp32 instead.
#include "04_tcu_scan/kernels/block_frame.cuh"

namespace tcu::detail::scan {
namespace {

// One level for all segments of the block tile: the groups of y = r[start :: stride] (ylen
// elements per segment) go 16 to a tile; each tile is multiplied by M (U or B_sᵀ) and scattered back.
__device__ void matmulscan_level(FrameSmem& sm, int segs, int seg_stride, int start, int stride, int ylen,
                                 const __half* m, int warp, int lane) {
  const int groups_per_seg = static_cast<int>(ceil_div(ylen, kTile));
  const int groups = segs * groups_per_seg;
  const int tiles = static_cast<int>(ceil_div(groups, kTile));
  SplitScratch& s = sm.scratch[warp];
  auto index_of = [&](int tile, int e) -> int {  // element e of the tile: where in sm.r, or -1
    const int c = tile * kTile + e / kTile;
    if (c >= groups) return -1;
    const int seg = c / groups_per_seg;
    const int j = (c - seg * groups_per_seg) * kTile + e % kTile;
    return j < ylen ? seg * seg_stride + start + j * stride : -1;
  };
  tc::FragBRow fm;
  wmma::load_matrix_sync(fm, m, kTile);
  for (int t = warp; t < tiles; t += kBlockWarps) {
    for (int e = lane; e < kTileElems; e += kWarpSize) {  // gather: 16 groups of y, one per row
      const int idx = index_of(t, e);
      s.f[e] = idx >= 0 ? sm.r[idx] : 0.0f;
    }
    __syncwarp();
    tc::FragAcc acc;
    wmma::fill_fragment(acc, 0.0f);
    if (tc::mma_split_operand(acc, s.f, fm, s.hi, s.lo, lane)) {  // groups · M
      wmma::store_matrix_sync(s.f, acc, kTile, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < kTileElems; e += kWarpSize) {  // scatter back
        const int idx = index_of(t, e);
        if (idx >= 0) sm.r[idx] = s.f[e];
      }
    } else {  // a partial sum above 2^15: groups · M in fp32, scattered back as computed
      for (int e = lane; e < kTileElems; e += kWarpSize) {
        const int idx = index_of(t, e);
        if (idx >= 0) sm.r[idx] = times_tile_fp32_at(s.f, m, e);
      }
    }
    __syncwarp();
  }
}

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kBlockThreads, kFrameMinBlocksPerSm)
    matmulscan_kernel(const __half* __restrict__ in, OutT* __restrict__ out, FrameLayout fl) {
  __shared__ FrameSmem sm;
  const int tid = threadIdx.x, warp = tid / kWarpSize, lane = tid % kWarpSize;
  tc::write_constant_tile(sm.u, tc::ConstantMatrix::U, tid, kBlockThreads);
  for (int e = tid; e < kTileElems; e += kBlockThreads) {  // x = B_sᵀ: identity with row 0 all ones
    const int k = e / kTile, j = e % kTile;
    sm.x[e] = __float2half((k == j || tc::constant_entry_is_one(tc::ConstantMatrix::P, k, j)) ? 1.0f : 0.0f);
  }
  walk_frame<OutT, kInclusive>(in, out, fl, sm, [&](const BlockTile& bt) {
    const int n = fl.seg_stride;  // 16, 256 or 4096 = 16^k
    // Up-sweep, t = 0: every group of 16 inputs scanned straight from fp16, R = A·U (as Scan16).
    const int tiles = static_cast<int>(ceil_div(bt.segs * n, kTileElems));  // staged tiles
    for (int t = warp; t < tiles; t += kBlockWarps) {
      tc::FragA fa;
      tc::FragBRow fu;
      tc::FragAcc acc;
      wmma::load_matrix_sync(fa, sm.a + t * kTileElems, kTile);
      wmma::load_matrix_sync(fu, sm.u, kTile);
      wmma::fill_fragment(acc, 0.0f);
      wmma::mma_sync(acc, fa, fu, acc);
      wmma::store_matrix_sync(sm.r + t * kTileElems, acc, kTile, wmma::mem_row_major);
    }
    int span = kTile;                  // 16^t
    for (; span < n; span *= kTile) {  // up-sweep, t = 1 … k−1: y = x[16^t − 1 :: 16^t], y·U
      __syncthreads();
      matmulscan_level(sm, bt.segs, n, span - 1, span, n / span, sm.u, warp, lane);
    }
    for (span /= kTile; span > 1; span /= kTile) {  // down-sweep, t = k−1 … 1: y = x[16^t − 1 :: 16^(t−1)], y·B_sᵀ
      __syncthreads();
      const int start = span - 1, stride = span / kTile;
      matmulscan_level(sm, bt.segs, n, start, stride, (n - 1 - start) / stride + 1, sm.x, warp, lane);
    }
  });
}

}  // namespace

template <class OutT>
cudaError_t launch_matmulscan(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                              bool inclusive, cudaStream_t stream) {
  const int n = segment_size <= kTile ? kTile : segment_size <= kTileElems ? kTileElems : kFrameElems;
  const FrameLayout fl = make_frame_layout(num_segments, segment_size, n);
  return launch_frame<OutT>(matmulscan_kernel<OutT, true>, matmulscan_kernel<OutT, false>, inclusive, in, out, fl, stream);
}

template cudaError_t launch_matmulscan(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_matmulscan(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::scan
