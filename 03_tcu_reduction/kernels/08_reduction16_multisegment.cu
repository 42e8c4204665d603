// Reduction16 multi-segment (our extension of Dakkak et al.'s Reduction16/Reduction256 to
// segments of 16 … 2048 elements, a power of two; docs/algorithms.md, "Reduction16
// multi-segment"): the loads do not follow the segments at all. A warp reads a round of kTiles
// consecutive 256-element tiles of the array with fully coalesced 16-byte loads (each load
// instruction of the warp: 512 contiguous bytes, kTiles of them in flight per lane), and two
// matrix products do the arithmetic.
//
// Tile k of the round, read row-major, has rows of 16 consecutive elements; loaded column-
// major as B, column r of B is row r of the tile. E_q is the 16×16 matrix whose row q is ones.
//
//   (1) V = Σ_k E_row(k) · B_k        V[row(k)][r] += Σ_c tile_k[r][c]   (16-element row sums)
//
//       row(k) = k for segments <= 256 (tile k's 16 row sums land in row k of V), and
//       row(k) = k / τ for segments of τ·256 (the τ tiles of one segment add up in one row).
//
//   (2) R = V·M  with M[r][j] = 1 iff r / m == j       (m = 16-element rows per segment, <= 16)
//
//        V (row k: row sums of tile k)         M (m = 4: 4 segments of 64 per tile)
//   [v0 v1 v2 v3 | v4 … v7 | … | v12 … v15]   [1 0 0 0 0 …]   R[k][j] = Σ_{r in segment j} V[k][r]
//   [   …                                ] · [1 0 0 0 0 …] = the sum of segment j of tile k
//                                              [1 0 0 0 …  ]
//                                              [1 0 0 0 …  ]
//                                              [0 1 0 0 …  ]   (rows 4…7: column 1, …)
//
// V is fp32 and an MMA operand must be fp16: V = hi + lo (tc::warp_split_rows), R = hi·M + lo·M
// into an fp32 accumulator. Where some |V| > 2^15 (it does not split) the lanes add the m
// entries of each segment in fp32 instead. Segments of 16 (m = 1, M = I) skip step (2): row k
// of V already holds tile k's 16 segment sums (Reduction16 with 8 tiles per store of V instead
// of one).
//
// Any pointer alignment: a lane's 8 elements are one 16-byte load where the address allows
// it, else loaded element by element (tc::load_contiguous); the tail of the array is
// zero-padded. Shared memory per warp: the kTiles staged tiles; V, hi and lo reuse them. The
// rounds are software-pipelined (tc::run_round_pipeline): the next round's loads are in flight
// while this round is multiplied.
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/segment_rows.cuh"

namespace tcu::detail::reduce {
using namespace tc;  // the shared tensor-core vocabulary: FragA, kTile, load_segment_rows, …

constexpr int kWarps = 8, kRoundTiles = 8;  // warps per block; tiles per round

// Block-wide constants: all E_q in one window (tc::write_e_window), and M for this segment size.
struct MultiSegmentConstants {
  __half e_window[tc::kEWindowRows * kTile];
  __half m[kTileElems];
};

template <int kWarpsPerBlock, int kTiles>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
reduction16_multisegment_kernel(const __half* __restrict__ x, float* __restrict__ out, std::int64_t num_segments,
                                std::int64_t segment_size) {
  static_assert(kTiles >= 1 && kTiles <= kTile, "a round fills at most the 16 rows of V");
  static_assert(kTiles == 8, "V, hi and lo reuse the first four staged tiles; the split takes 8 rows");
  __shared__ __align__(32) MultiSegmentConstants consts;
  __shared__ __align__(32) __half tiles[kWarpsPerBlock][kTiles][kTileElems];
  const int lane = lane_id();
  const int w = warp_in_block();

  // Shape of a round (all lanes, all warps the same).
  const int segs_per_row = segment_size >= kTileElems ? 1 : static_cast<int>(kTileElems / segment_size);
  const int rows_per_seg = kTile / segs_per_row;  // m: 16-element rows of V per segment (1 … 16)
  const int tau = segment_size > kTileElems ? static_cast<int>(segment_size / kTileElems) : 1;
  const int tau_shift = __ffs(tau) - 1;  // powers of two: shifts, not divisions
  const int spr_shift = __ffs(segs_per_row) - 1;
  const std::int64_t round_elems = static_cast<std::int64_t>(kTiles) * kTileElems;
  const int outs_per_round = static_cast<int>(round_elems / segment_size);

  tc::write_e_window(consts.e_window, threadIdx.x, blockDim.x);
  tc::write_constant_tile(consts.m, ConstantMatrix::M, threadIdx.x, blockDim.x, rows_per_seg);
  __syncthreads();

  float* vbuf = reinterpret_cast<float*>(&tiles[w][0][0]);  // 256 floats = staged tiles 0 and 1
  __half* hi = &tiles[w][2][0];
  __half* lo = &tiles[w][3][0];

  const std::int64_t total = num_segments * segment_size;
  tc::Piece piece[kTiles];
  tc::run_round_pipeline(
      tc::StridedRounds{static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + w,
                        static_cast<std::int64_t>(gridDim.x) * kWarpsPerBlock, ceil_div(total, round_elems)},
      [&](const tc::StridedRounds& r) {  // kTiles coalesced 512-byte loads per warp
#pragma unroll
        for (int k = 0; k < kTiles; ++k)
          piece[k] = tc::load_contiguous<tc::Cache::read_only>(
              x, total, r.round * round_elems + static_cast<std::int64_t>(k) * kTileElems, lane);
      },
      [&] {
#pragma unroll
        for (int k = 0; k < kTiles; ++k) tc::store_piece(tiles[w][k], piece[k], lane);
      },
      [&](const tc::StridedRounds& r) {
        FragAcc v;
        wmma::fill_fragment(v, 0.0f);
#pragma unroll
        for (int k = 0; k < kTiles; ++k) {
          FragBCol b;
          FragA e;
          wmma::load_matrix_sync(b, tiles[w][k], kTile);                            // column r = tile row r
          wmma::load_matrix_sync(e, tc::e_window_row(consts.e_window, k >> tau_shift), kTile);  // E_row(k)
          wmma::mma_sync(v, e, b, v);                                               // (1) V += E·B_k
        }
        __syncwarp();  // every lane is done with the tiles before V overwrites them
        wmma::store_matrix_sync(vbuf, v, kTile, wmma::mem_row_major);
        __syncwarp();

        const std::int64_t seg0 = r.round * outs_per_round;  // = e0 / segment_size
        if (rows_per_seg == 1) {  // segments of 16: V[k][r] is segment 16k + r of the round
          for (int o = lane; o < outs_per_round; o += 32)
            if (seg0 + o < num_segments) out[seg0 + o] = vbuf[o];
        } else if (tc::warp_split_rows<kTiles>(vbuf, hi, lo, lane)) {  // rows 0 … 7 of V
          FragBRow mfrag;  // loaded here, not kept: registers go to the next round's pieces
          FragAcc res;
          wmma::load_matrix_sync(mfrag, consts.m, kTile);
          wmma::fill_fragment(res, 0.0f);
          mma_hi_lo(res, hi, lo, mfrag);  // (2) R = hi·M + lo·M
          wmma::store_matrix_sync(vbuf, res, kTile, wmma::mem_row_major);
          __syncwarp();
          for (int o = lane; o < outs_per_round; o += 32)
            if (seg0 + o < num_segments) out[seg0 + o] = vbuf[(o >> spr_shift) * kTile + (o & (segs_per_row - 1))];
        } else {  // a partial does not split (|V| > 2^15): the m entries of each segment in fp32
          for (int o = lane; o < outs_per_round; o += 32) {
            const float* row = vbuf + (o / segs_per_row) * kTile + (o % segs_per_row) * rows_per_seg;
            float t = 0.0f;
            for (int i = 0; i < rows_per_seg; ++i) t += row[i];
            if (seg0 + o < num_segments) out[seg0 + o] = t;
          }
        }
        // (the pipeline's __syncwarp follows: vbuf / hi / lo are the next round's tiles)
      });
}

cudaError_t launch_reduction16_multisegment(const __half* d_in, float* d_out, std::int64_t num_segments,
                                            std::int64_t segment_size, cudaStream_t stream) {
  // Resident blocks only (a grid-stride loop over rounds of 8 tiles): blocks in a second wave
  // would leave the first wave's SMs idle at the end.
  const auto kernel = reduction16_multisegment_kernel<kWarps, kRoundTiles>;
  const std::int64_t rounds = ceil_div(num_segments * segment_size, std::int64_t(kRoundTiles) * kTileElems);
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(kernel), kWarps * 32, ceil_div(rounds, kWarps));
  kernel<<<grid, kWarps * 32, 0, stream>>>(d_in, d_out, num_segments, segment_size);
  return cudaGetLastError();
}

}  // namespace tcu::detail::reduce
