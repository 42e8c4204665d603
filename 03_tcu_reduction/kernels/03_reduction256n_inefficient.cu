// Reduction256N, work-inefficient (Dakkak et al. §4.1): N times Reduction256, the running
// scalar carried in the accumulator C of the second MMA:  R_i = (P·A_i)·Pᵀ + R_{i−1}.
// Three MMAs per tile with the hi/lo split of V (3N; 2N when V is rounded to fp16, as in the
// paper) and N trips of V through shared memory.
//
// One warp reduces one work item: a chunk of at most `chunk` elements of one segment (the
// launcher splits long segments into chunks and adds the partials in a second pass:
// split_segments.cuh).
#include "03_tcu_reduction/kernels/collapse.cuh"
#include "03_tcu_reduction/kernels/launchers.hpp"
#include "03_tcu_reduction/kernels/split_segments.cuh"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::reduce {

template <int kWarpsPerBlock>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
reduction256n_inefficient_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                                 std::int64_t segment_size, std::int64_t chunk, std::int64_t chunks_per_segment) {
  __shared__ __align__(32) WarpScratch scratch[kWarpsPerBlock];
  WarpScratch& s = scratch[warp_in_block()];
  const int lane = lane_id();

  FragA p;
  FragBRow pt;
  init_p_pt(p, pt, s, lane);

  const std::int64_t items = num_segments * chunks_per_segment;
  for (std::int64_t w = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + warp_in_block(); w < items;
       w += static_cast<std::int64_t>(gridDim.x) * kWarpsPerBlock) {
    const ChunkItem item = chunk_item(x, w, segment_size, chunk, chunks_per_segment);
    float r = 0.0f;  // R[0][0], carried from tile to tile
    for (std::int64_t t = 0; t < item.len; t += kTileElems) {
      tc::store_piece(s.tile, tc::load_contiguous<tc::Cache::read_only>(item.p, item.len, t, lane), lane);
      __syncwarp();
      FragBRow a;
      FragAcc v;
      wmma::load_matrix_sync(a, s.tile, kTile);
      wmma::fill_fragment(v, 0.0f);
      wmma::mma_sync(v, p, a, v);  // V_i = P·A_i
      wmma::store_matrix_sync(s.v, v, kTile, wmma::mem_row_major);
      __syncwarp();
      r = collapse_row0(s, pt, lane, r);  // R_i = V_i·Pᵀ + R_{i−1} (R_{i−1} is the C operand)
    }
    if (lane == 0) out[w] = r;
  }
}

cudaError_t launch_reduction256n_inefficient(const __half* d_in, float* d_out, std::int64_t num_segments,
                                             std::int64_t segment_size, cudaStream_t stream) {
  return run_split(d_out, num_segments, segment_size, kInefficientGranule, stream,
                   [&](float* out, std::int64_t chunk, std::int64_t cps) {
                     reduction256n_inefficient_kernel<kWarps>
                         <<<tc::grid_for(ceil_div(num_segments * cps, kWarps), 6), kThreads, 0, stream>>>(
                             d_in, out, num_segments, segment_size, chunk, cps);
                   });
}

}  // namespace tcu::detail::reduce
