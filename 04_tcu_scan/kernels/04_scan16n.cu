// Scan16N (Dakkak et al. Alg. 5; docs/algorithms.md, "Scan"): one warp scans 16 segments side
// by side. Step t loads the tile whose row r is elements [16t, 16t + 16) of segment r (the
// paper's leading dimension 16N; here staged through shared memory, so any segment size and
// alignment work), computes R = A·U + S, and S for the next step is the last column of R
// broadcast along each row. The broadcast goes through shared memory: WMMA fragment layouts
// are not documented. Loads run kSteps steps ahead (a 16 × 64 block per warp) so that more
// bytes are in flight. S is an fp32 accumulator (C), never an fp16 operand: no split.
#include "common/int_math.hpp"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"

namespace tcu::detail::scan {
namespace {

namespace wmma = nvcuda::wmma;
using tc::kTile;
using tc::kTileElems;
using tc::kWarpSize;

// Blocks of 8 independent warps, each with its own slice of shared memory, grid-striding over
// warp-sized work items (one resident wave at most).
constexpr int kWarpKernelWarps = 8;
constexpr int kWarpKernelThreads = kWarpKernelWarps * kWarpSize;
constexpr int kSteps = 4;              // tiles staged per load phase
constexpr int kCols = kSteps * kTile;  // 64 columns: the staged block's leading dimension
static_assert(kCols % 8 == 0, "WMMA ldm for __half must be a multiple of 8");

struct alignas(128) Scan16nSmem {
  __half a[kTile * kCols];  // 16 segments × 64 columns, zero padded
  float r[kTileElems];      // R of the current step
  float c[kTileElems];      // S: the carry tile
  __half u[kTileElems];
  __half pad[kTileElems];   // unused: keeps the footprint (and so the blocks per SM) as measured
};

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kWarpKernelThreads)
    scan16n_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t num_segments,
                   std::int64_t segment_size) {
  __shared__ Scan16nSmem smem[kWarpKernelWarps];
  const int warp = tc::warp_in_block(), lane = tc::lane_id();
  Scan16nSmem& sm = smem[warp];
  tc::write_constant_tile(sm.u, tc::ConstantMatrix::U, lane, kWarpSize);
  const std::int64_t groups = ceil_div(num_segments, kTile);
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * kWarpKernelWarps;
  for (std::int64_t g = static_cast<std::int64_t>(blockIdx.x) * kWarpKernelWarps + warp; g < groups; g += warps) {
    const std::int64_t seg0 = g * kTile;
    for (int e = lane; e < kTileElems; e += kWarpSize) sm.c[e] = 0.0f;  // S = 0
    for (std::int64_t block0 = 0; block0 < segment_size; block0 += kCols) {
      __syncwarp();
      for (int v = lane; v < kTile * kCols / tc::kPieceElems; v += kWarpSize) {  // row = segment, 64 columns of it
        const int row = v / (kCols / tc::kPieceElems), c8 = (v % (kCols / tc::kPieceElems)) * tc::kPieceElems;
        const std::int64_t seg = seg0 + row, col = block0 + c8;
        const __half* src = in + seg * segment_size + col;
        // Eight elements of the segment (16-byte load where aligned), zeros past its end or
        // past the last segment.
        const std::int64_t valid = seg < num_segments ? segment_size - col : 0;
        *reinterpret_cast<uint4*>(sm.a + row * kCols + c8) = tc::load_piece<tc::Cache::streaming>(src, valid).v;
      }
      for (int step = 0; step < kSteps && block0 + step * kTile < segment_size; ++step) {
        const std::int64_t col0 = block0 + step * kTile;
        __syncwarp();
        tc::FragA fa;
        tc::FragBRow fu;
        tc::FragAcc acc;
        wmma::load_matrix_sync(fa, sm.a + step * kTile, kCols);
        wmma::load_matrix_sync(fu, sm.u, kTile);
        wmma::load_matrix_sync(acc, sm.c, kTile, wmma::mem_row_major);  // C = S
        wmma::mma_sync(acc, fa, fu, acc);                                // R = A·U + S
        wmma::store_matrix_sync(sm.r, acc, kTile, wmma::mem_row_major);
        __syncwarp();
        {  // lane: half a row, 8 consecutive results of one segment
          const int row = tc::piece_row(lane), c0 = tc::piece_col(lane);
          const std::int64_t seg = seg0 + row, col = col0 + c0;
          float v[tc::kPieceElems];
#pragma unroll
          for (int j = 0; j < tc::kPieceElems; ++j) {
            const int e = row * kTile + c0 + j;
            v[j] = kInclusive ? sm.r[e] : (c0 + j == 0 ? sm.c[e] : sm.r[e - 1]);
          }
          if (seg < num_segments && col < segment_size)
            tc::store8(out + seg * segment_size + col, v, segment_size - col);
        }
        __syncwarp();
        for (int e = lane; e < kTileElems; e += kWarpSize) sm.c[e] = sm.r[(e / kTile) * kTile + kTile - 1];
      }
    }
  }
}

}  // namespace

template <class OutT>
cudaError_t launch_scan16n(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                           bool inclusive, cudaStream_t stream) {
  auto* k = inclusive ? scan16n_kernel<OutT, true> : scan16n_kernel<OutT, false>;
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(k), kWarpKernelThreads,
                                          ceil_div(ceil_div(num_segments, kTile), kWarpKernelWarps));  // 16 per warp
  k<<<grid, kWarpKernelThreads, 0, stream>>>(in, out, num_segments, segment_size);
  return cudaGetLastError();
}

template cudaError_t launch_scan16n(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_scan16n(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::scan
