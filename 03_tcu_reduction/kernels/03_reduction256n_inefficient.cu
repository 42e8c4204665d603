// Reduction256N, work-inefficient (Dakkak et al. §4.1): N times Reduction256, the running
// scalar carried in the accumulator C of the second MMA:  R_i = (P·A_i)·Pᵀ + R_{i−1}.
// Three MMAs per tile with the hi/lo split of V (3N; 2N when V is rounded to fp16, as in the
// paper) and N trips of V through shared memory.
//
// One warp reduces one work item: a chunk of one segment. Long segments are cut into warp
// chunks that start at a tile (tc::plan_warp_chunks) and the chunks' partials are added by a
// second pass (tc::run_chunks).
#include "common/tensor_core/chunks.hpp"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"

namespace tcu::detail::reduce {
using namespace tc;  // the shared tensor-core vocabulary: FragA, kTile, load_contiguous, …

constexpr int kWarps = 8;  // warps per block

// Per-warp shared memory (as in 02_reduction256.cu).
struct WarpScratch {
  __half tile[kTileElems];  // the staged tile, or a constant matrix while it is loaded
  float v[kTileElems];      // V stored to become an operand, then R
  __half hi[kTileElems];    // fp16(V)
  __half lo[kTileElems];    // fp16(V − fp16(V))
};

template <int kWarpsPerBlock>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
reduction256n_inefficient_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                                 std::int64_t segment_size, ChunkPlan plan) {
  __shared__ __align__(32) WarpScratch scratch[kWarpsPerBlock];
  WarpScratch& s = scratch[warp_in_block()];
  const int lane = lane_id();

  FragA p;  // Initialize P and Pᵀ
  FragBRow pt;
  load_constant(p, ConstantMatrix::P, s.tile, lane);
  load_constant(pt, ConstantMatrix::Pt, s.tile, lane);
  store_piece(s.hi, zero_piece(), lane);  // rows 1 … 15 of hi and lo stay zero (mma_split_row0)
  store_piece(s.lo, zero_piece(), lane);

  const std::int64_t items = num_segments * plan.chunks_per_segment;
  for (std::int64_t w = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + warp_in_block(); w < items;
       w += static_cast<std::int64_t>(gridDim.x) * kWarpsPerBlock) {
    const Chunk c = chunk_of(w, segment_size, plan);
    float r = 0.0f;  // R[0][0], carried from tile to tile
    for (std::int64_t t = 0; t < c.len; t += kTileElems) {
      tc::store_piece(s.tile, tc::load_contiguous<tc::Cache::read_only>(x + c.first, c.len, t, lane), lane);
      __syncwarp();
      FragBRow a;
      FragAcc v;
      wmma::load_matrix_sync(a, s.tile, kTile);
      wmma::fill_fragment(v, 0.0f);
      wmma::mma_sync(v, p, a, v);  // V_i = P·A_i
      wmma::store_matrix_sync(s.v, v, kTile, wmma::mem_row_major);
      __syncwarp();
      FragAcc ri;
      wmma::fill_fragment(ri, r);  // R_{i−1} is the C operand
      if (mma_split_row0(ri, s.v, pt, s.hi, s.lo, lane)) {  // R_i = V_i·Pᵀ + R_{i−1}
        wmma::store_matrix_sync(s.v, ri, kTile, wmma::mem_row_major);
        __syncwarp();
        r = s.v[0];
      } else {
        r = row16_sum(s.v, lane) + r;  // V_i does not split: row 0 in fp32
      }
      __syncwarp();
    }
    if (lane == 0) out[w] = r;
  }
}

ChunkPlan reduction256n_inefficient_chunks(std::int64_t num_segments, std::int64_t segment_size, int sm_count) {
  return plan_warp_chunks(num_segments, segment_size, kTileElems, sm_count);
}

cudaError_t launch_reduction256n_inefficient(const __half* d_in, float* d_out, std::int64_t num_segments,
                                             std::int64_t segment_size, cudaStream_t stream) {
  return run_chunks(d_out, num_segments, reduction256n_inefficient_chunks(num_segments, segment_size, sm_count()),
                    stream, [&](float* out, const ChunkPlan& plan) {
                      reduction256n_inefficient_kernel<kWarps>
                          <<<grid_for(ceil_div(num_segments * plan.chunks_per_segment, kWarps), 6), kWarps * 32, 0,
                             stream>>>(d_in, out, num_segments, segment_size, plan);
                      return cudaGetLastError();
                    });
}

}  // namespace tcu::detail::reduce
