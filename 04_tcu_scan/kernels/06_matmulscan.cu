// MatMulScan (Zouzias & McColl, Euro-Par 2023; docs/algorithms.md, "MatMulScan") on the GPU,
// s = 16: the paper has no GPU version. Inside a block, a segment padded to n = 16^k elements
// (k = 1, 2, 3: 16, 256 or 4096 elements in shared memory) is scanned by
//   up-sweep   t = 0 … k−1: y = x[16^t − 1 :: 16^t], every chunk of 16 → its inclusive
//              prefix sums (chunk · U: the row form of L_s · chunk), 16 chunks per MMA tile;
//   down-sweep t = k−1 … 1: y = x[16^t − 1 :: 16^(t−1)], every chunk of 16 gets its first
//              element added to the others (chunk · B_sᵀ, B_s = identity with column 0 ones).
// Depth 2k − 1; the tile products per level are counted by bench/scan_model.hpp. Segments
// longer than 4096 are joined slab by slab with a carry (block_tiles.cuh). Levels after the
// first read fp32 partial sums, split into fp16 hi + lo operands (two MMAs per tile); a tile
// with a partial sum above 2^15 is multiplied in fp32 on the CUDA cores instead.
#include "04_tcu_scan/kernels/block_tiles.cuh"
#include "04_tcu_scan/kernels/launchers.hpp"

namespace tcu::detail::scan {
namespace {

// One level for all segments of the slab: the chunks of y = r[start :: stride] (per segment,
// ylen elements) go 16 to a tile; each tile is multiplied by M (U or B_sᵀ) and scattered back.
__device__ void matmulscan_level(BlockSmem& sm, int segs, int seg_stride, int start, int stride, int ylen,
                                 const __half* m, int warp, int lane) {
  const int chunks_per_seg = static_cast<int>(ceil_div(ylen, kTile));
  const int chunks = segs * chunks_per_seg;
  const int tiles = static_cast<int>(ceil_div(chunks, kTile));
  SplitScratch& s = sm.scratch[warp];
  auto index_of = [&](int tile, int e) -> int {  // element e of the tile: where in sm.r, or -1
    const int c = tile * kTile + e / kTile;
    if (c >= chunks) return -1;
    const int seg = c / chunks_per_seg;
    const int j = (c - seg * chunks_per_seg) * kTile + e % kTile;
    return j < ylen ? seg * seg_stride + start + j * stride : -1;
  };
  tc::FragBRow fm;
  wmma::load_matrix_sync(fm, m, kTile);
  for (int t = warp; t < tiles; t += kBlockWarps) {
    for (int e = lane; e < kTileElems; e += kWarpSize) {  // gather: 16 chunks of y, one per row
      const int idx = index_of(t, e);
      s.f[e] = idx >= 0 ? sm.r[idx] : 0.0f;
    }
    __syncwarp();
    tc::FragAcc acc;
    wmma::fill_fragment(acc, 0.0f);
    if (tc::mma_split_operand(acc, s.f, fm, s.hi, s.lo, lane)) {  // chunks · M
      wmma::store_matrix_sync(s.f, acc, kTile, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < kTileElems; e += kWarpSize) {  // scatter back
        const int idx = index_of(t, e);
        if (idx >= 0) sm.r[idx] = s.f[e];
      }
    } else {  // a partial sum above 2^15: chunks · M in fp32, scattered back as computed
      for (int e = lane; e < kTileElems; e += kWarpSize) {
        const int idx = index_of(t, e);
        if (idx >= 0) sm.r[idx] = times_tile_fp32_at(s.f, m, e);
      }
    }
    __syncwarp();
  }
}

struct MatMulScan {
  static __device__ void init(BlockSmem& sm, const SlabLayout&, int tid) {
    tc::write_constant_tile(sm.u, tc::ConstantMatrix::U, tid, kBlockThreads);
    for (int e = tid; e < kTileElems; e += kBlockThreads) {  // B_sᵀ: identity with row 0 all ones
      const int k = e / kTile, j = e % kTile;
      sm.x[e] = __float2half((k == j || tc::constant_entry_is_one(tc::ConstantMatrix::P, k, j)) ? 1.0f : 0.0f);
    }
  }

  static __device__ void scan_slab(BlockSmem& sm, const SlabLayout& sl, int segs, int, int warp, int lane) {
    const int n = sl.seg_stride;  // 16, 256 or 4096 = 16^k
    // Up-sweep, t = 0: every chunk of 16 consecutive inputs scanned, straight from the fp16 input.
    const int tiles = static_cast<int>(ceil_div(segs * n, kTileElems));
    for (int t = warp; t < tiles; t += kBlockWarps) scan16_tile(sm.a + t * kTileElems, sm.u, sm.r + t * kTileElems);
    int span = kTile;                  // 16^t
    for (; span < n; span *= kTile) {  // up-sweep, t = 1 … k−1
      __syncthreads();
      matmulscan_level(sm, segs, n, span - 1, span, n / span, sm.u, warp, lane);
    }
    for (span /= kTile; span > 1; span /= kTile) {  // down-sweep, t = k−1 … 1 (span = 16^t)
      __syncthreads();
      const int start = span - 1, stride = span / kTile;
      matmulscan_level(sm, segs, n, start, stride, (n - 1 - start) / stride + 1, sm.x, warp, lane);
    }
  }
};

}  // namespace

template <class OutT>
cudaError_t launch_matmulscan(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                              bool inclusive, cudaStream_t stream) {
  const int n = segment_size <= kTile ? kTile : segment_size <= kTileElems ? kTileElems : kSlab;
  const SlabLayout sl = make_slab_layout(num_segments, segment_size, n);
  return launch_block_scan<MatMulScan>(in, out, sl, inclusive, stream);
}

TCU_SCAN_INSTANTIATE_LAUNCHER(launch_matmulscan);

}  // namespace tcu::detail::scan
