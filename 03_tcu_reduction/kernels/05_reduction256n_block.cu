// Block-level Reduction256N (Dakkak et al. Alg. 4): a block per segment. Warp w reduces tiles
// w, w + W, w + 2W, … of the segment with the work-efficient chain V = P·A + V (neighbouring
// warps read neighbouring tiles: the block reads the segment front to back), collapses V
// with V·Pᵀ and writes its partial to shared memory. After a barrier — missing in the
// paper's code (erratum): without it warp 0 may read partials not yet written — warp 0 puts
// the W partials in row 0 of a tile and sums them with one more V·Pᵀ.
//
// A segment longer than kBlockChunk (2^18) elements is cut into chunks (split_for_blocks), a
// block per chunk, and a second pass adds the chunks' partials: one block per long segment
// would leave the GPU idle when the segments are fewer than the SMs (one segment: one SM at
// work). A block's work item is therefore a chunk (ChunkItem): the whole segment when it is
// short.
#include "03_tcu_reduction/kernels/collapse.cuh"
#include "03_tcu_reduction/kernels/launchers.hpp"
#include "03_tcu_reduction/kernels/split_segments.cuh"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::reduce {

template <int kWarpsPerBlock, int kLoads>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
reduction256n_block_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                           std::int64_t segment_size, std::int64_t chunk, std::int64_t chunks_per_segment) {
  static_assert(kWarpsPerBlock <= kTile, "the partials fill row 0 of one tile");
  __shared__ __align__(32) WarpScratch scratch[kWarpsPerBlock];
  __shared__ __align__(32) __half tiles[kWarpsPerBlock][kLoads][kTileElems];
  __shared__ float partial[kWarpsPerBlock];
  const int wib = warp_in_block(), lane = lane_id();
  WarpScratch& s = scratch[wib];

  FragA p;  // Alg. 4: Initialize P (and Pᵀ)
  FragBRow pt;
  init_p_pt(p, pt, s, lane);

  const std::int64_t items = num_segments * chunks_per_segment;
  for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    // The block's elements: p_in[0 … len) (a whole segment, or a chunk of a long one).
    const ChunkItem ci = chunk_item(x, item, segment_size, chunk, chunks_per_segment);
    const __half* p_in = ci.p;
    const std::int64_t len = ci.len;
    // BEGIN EXERCISE 03.5 Block level (Alg. 4): a block per segment, warp partials, one barrier
    // HINT: Warp wib reduces tiles wib, wib + W, … of p_in[0 … len) (kLoads at a time, staged in
    // HINT: tiles[wib]) with the work-efficient chain V = P·A + V, then collapses V with
    // HINT: store_and_collapse and lane 0 writes its partial to partial[wib]. Every warp must
    // HINT: have written before warp 0 reads: __syncthreads(). Warp 0 puts the W partials in
    // HINT: row 0 of s.v and calls collapse_row0; lane 0 writes out[item]. A second barrier
    // HINT: keeps the next item from overwriting partial[] too early (racecheck finds both).
    // SIZE: 35 to 45 lines
    FragAcc v;
    wmma::fill_fragment(v, 0.0f);
    for (std::int64_t t = static_cast<std::int64_t>(wib) * kTileElems; t < len;
         t += static_cast<std::int64_t>(kWarpsPerBlock) * kLoads * kTileElems) {
      tc::Piece piece[kLoads];
#pragma unroll
      for (int k = 0; k < kLoads; ++k)
        piece[k] = tc::load_contiguous<tc::Cache::read_only>(
            p_in, len, t + static_cast<std::int64_t>(k) * kWarpsPerBlock * kTileElems, lane);
      __syncwarp();
#pragma unroll
      for (int k = 0; k < kLoads; ++k) tc::store_piece(tiles[wib][k], piece[k], lane);
      __syncwarp();
#pragma unroll
      for (int k = 0; k < kLoads; ++k) {
        if (t + static_cast<std::int64_t>(k) * kWarpsPerBlock * kTileElems >= len) break;
        FragBRow a;
        wmma::load_matrix_sync(a, tiles[wib][k], kTile);
        wmma::mma_sync(v, p, a, v);  // V = P·A + V (warp level, Alg. 4 line "warp reduce")
      }
    }
    const float mine = store_and_collapse(s, v, pt, lane);  // R = V·Pᵀ
    if (lane == 0) partial[wib] = mine;
    __syncthreads();  // erratum: the barrier the published block kernel lacks
    if (wib == 0) {
      if (lane < kTile) s.v[lane] = (lane < kWarpsPerBlock) ? partial[lane] : 0.0f;  // row 0 = the partials
      __syncwarp();
      const float total = collapse_row0(s, pt, lane);
      if (lane == 0) out[item] = total;
    }
    __syncthreads();  // partial[] is reused by the next item
    // STUB: (void)p; (void)pt; (void)lane; (void)tiles; (void)partial; (void)out; (void)p_in; (void)len;
    // END EXERCISE
  }
}

cudaError_t launch_reduction256n_block(const __half* d_in, float* d_out, std::int64_t num_segments,
                                       std::int64_t segment_size, cudaStream_t stream) {
  // Resident blocks only (one wave, as many as fit): each walks its items block-stride. A grid
  // larger than what fits leaves its last blocks to start alone once the first ones are done:
  // a tail with too few loads in flight.
  const auto kernel = reduction256n_block_kernel<kWarps, kInFlight>;
  return run_plan(d_out, num_segments, split_for_blocks(segment_size, kBlockGranule), stream,
                  [&](float* out, std::int64_t chunk, std::int64_t cps) {
                    const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(kernel), kThreads,
                                                            num_segments * cps);
                    kernel<<<grid, kThreads, 0, stream>>>(d_in, out, num_segments, segment_size, chunk, cps);
                  });
}

}  // namespace tcu::detail::reduce
