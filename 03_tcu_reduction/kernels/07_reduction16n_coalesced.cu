// Reduction16N, coalesced (Dakkak et al. Alg. 3): 16 segments per warp as in the strided
// version, but each segment's whole 256-element blocks are read contiguously (coalesced) with
// the Reduction256N method; only the rest, (N mod 16)·16 elements per segment, is read strided.
//
//   for c in 0…15:  W_c = Σ_b P·A_{c,b}           (Alg. 3 lines 5–8, one segment at a time;
//                   Q[:, c] = row 0 of W_c          16 partial sums of segment c in column c)
//   V = P·Q                                        (column c of Q summed into V[0][c])
//   V = P·A_i + V  for the strided rest            (Alg. 3 line 9, StridedReduction16)
//   out[s0 + lane] = V[0][lane], lane < 16         (Alg. 3 line 10)
//
// Q is fp32; as an operand it is split into two fp16 halves (P·Q = P·Q_hi + P·Q_lo,
// tc::warp_split_rows). Where a partial does not split (|Q| > 2^15) the columns are added in
// fp32 instead.
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/segment_rows.cuh"

namespace tcu::detail::reduce {
using namespace tc;  // the shared tensor-core vocabulary: FragA, kTile, load_segment_rows, …

constexpr int kWarps = 8, kLoads = 4;  // warps per block; tiles in flight per warp

template <int kWarpsPerBlock, int kLoads>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
reduction16n_coalesced_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                              std::int64_t segment_size) {
  struct Scratch {
    __half tiles[kLoads][kTileElems];
    float v[kTileElems];
    float q[kTileElems];  // Q[k][c] = partial k of segment c (row-major)
    __half q_hi[kTileElems];
    __half q_lo[kTileElems];
  };
  __shared__ __align__(32) Scratch scratch[kWarpsPerBlock];
  Scratch& s = scratch[warp_in_block()];
  const int lane = lane_id();

  FragA p;  // Alg. 3 line 1: Initialize P
  tc::load_constant(p, ConstantMatrix::P, s.tiles[0], lane);

  const std::int64_t blocks = segment_size / kTileElems;  // line 4: whole 256-element blocks per segment
  const std::int64_t rest_from = blocks * kTileElems;
  const std::int64_t groups = ceil_div(num_segments, kTile);
  for (std::int64_t g = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + warp_in_block(); g < groups;
       g += static_cast<std::int64_t>(gridDim.x) * kWarpsPerBlock) {
    const std::int64_t s0 = g * kTile;
    FragAcc v;
    wmma::fill_fragment(v, 0.0f);  // line 2: V = 0
    float fp32_extra = 0.0f;       // lane c < 16: column c of Q when it does not split
    if (blocks > 0) {
      for (int c = 0; c < kTile; ++c) {
        FragAcc w;
        wmma::fill_fragment(w, 0.0f);
        if (s0 + c < num_segments) {
          const __half* seg = x + (s0 + c) * segment_size;
          for (std::int64_t b = 0; b < blocks; b += kLoads) {  // lines 5–8
            tc::Piece piece[kLoads];
#pragma unroll
            for (int k = 0; k < kLoads; ++k)
              piece[k] = tc::load_contiguous<tc::Cache::read_only>(seg, rest_from, (b + k) * kTileElems, lane);
            __syncwarp();
#pragma unroll
            for (int k = 0; k < kLoads; ++k) tc::store_piece(s.tiles[k], piece[k], lane);
            __syncwarp();
#pragma unroll
            for (int k = 0; k < kLoads; ++k) {
              if (b + k >= blocks) break;
              FragBCol a;
              wmma::load_matrix_sync(a, s.tiles[k], kTile);  // line 7: LoadTile(…, "colmajor")
              wmma::mma_sync(w, p, a, w);                     // line 8: V = P·A + V
            }
          }
        }
        wmma::store_matrix_sync(s.v, w, kTile, wmma::mem_row_major);
        __syncwarp();
        if (lane < kTile) s.q[lane * kTile + c] = s.v[lane];  // Q[:, c] = row 0 of W_c
        __syncwarp();
      }
      // V = P·Q (two fp16 halves of Q), unless a partial does not split.
      if (!tc::warp_split_rows<kTile>(s.q, s.q_hi, s.q_lo, lane)) {
        if (lane < kTile)
          for (int k = 0; k < kTile; ++k) fp32_extra += s.q[k * kTile + lane];
      } else {
        FragBRow qf;
        wmma::load_matrix_sync(qf, s.q_hi, kTile);
        wmma::mma_sync(v, p, qf, v);  // V = P·Q_hi
        wmma::load_matrix_sync(qf, s.q_lo, kTile);
        wmma::mma_sync(v, p, qf, v);  // V += P·Q_lo
      }
      __syncwarp();
    }
    // line 9: the rest of every segment with StridedReduction16 (V keeps accumulating).
    for (std::int64_t col = rest_from; col < segment_size; col += kTile) {
      tc::store_piece(s.tiles[0],
                      tc::load_segment_rows<tc::Cache::read_only>(x, num_segments, segment_size, s0, col, lane), lane);
      __syncwarp();
      FragBCol a;
      wmma::load_matrix_sync(a, s.tiles[0], kTile);
      wmma::mma_sync(v, p, a, v);
      __syncwarp();
    }
    wmma::store_matrix_sync(s.v, v, kTile, wmma::mem_row_major);
    __syncwarp();
    if (lane < kTile && s0 + lane < num_segments) out[s0 + lane] = s.v[lane] + fp32_extra;  // line 10
    __syncwarp();
  }
}

cudaError_t launch_reduction16n_coalesced(const __half* d_in, float* d_out, std::int64_t num_segments,
                                          std::int64_t segment_size, cudaStream_t stream) {
  const std::int64_t groups = ceil_div(num_segments, kTile);
  reduction16n_coalesced_kernel<kWarps, kLoads><<<tc::grid_for(ceil_div(groups, kWarps), 5), kWarps * 32, 0,
                                                  stream>>>(d_in, d_out, num_segments, segment_size);
  return cudaGetLastError();
}

}  // namespace tcu::detail::reduce
