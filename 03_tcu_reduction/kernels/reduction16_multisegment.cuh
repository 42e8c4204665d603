#pragma once
// Reduction16 multi-segment (our extension of Dakkak et al.'s Reduction16/Reduction256 to
// segments of 16 … 2048 elements, a power of two): the loads do not follow the segments at
// all. A warp reads a round of kTiles consecutive 256-element tiles of the array with fully
// coalesced 16-byte loads (each load instruction of the warp: 512 contiguous bytes, kTiles of
// them in flight per lane), and two matrix products do the arithmetic.
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
// V is fp32 and an MMA operand must be fp16: V = hi + lo (tile_math.cuh, split_tile_hi_lo),
// R = hi·M + lo·M into an fp32 accumulator. Where some |V| > 2^15 (too large for fp16) the
// lanes add the m entries of each segment in fp32 instead. Segments of 16 (m = 1, M = I) skip
// step (2): row k of V already holds tile k's 16 segment sums (Reduction16 with 8 tiles per
// store of V instead of one).
//
// Any pointer alignment: a lane's 8 elements are one 16-byte load where the address allows
// it, else loaded element by element (staging::load_contiguous); the tail of the array is
// zero-padded. Shared memory per warp: the kTiles staged tiles; V, hi and lo reuse them.
#include "03_tcu_reduction/tile_math.cuh"

namespace tcu::reduction {

inline constexpr int kMultiSegmentTiles = 8;  // tiles per round (rows of V used)

// Segment sizes the multi-segment kernel takes: 16 · 2^j dividing a round of 8 tiles.
inline constexpr bool multisegment_supports(long long segment_size) {
  return segment_size >= kTile && segment_size <= kMultiSegmentTiles * kTileElems &&
         (segment_size & (segment_size - 1)) == 0;
}

// Block-wide constants: E_q = rows [15 − q, 31 − q) of `e_window` (row 15 is ones, the rest
// 0), q = 0 … 15, and M for this segment size.
struct MultiSegmentConstants {
  __half e_window[32 * kTile];
  __half m[kTileElems];
};

// Rows 0 … 7 of the fp32 V (128 values, one float4 per lane) as fp16 hi and lo tiles (rows 8 … 15
// of hi and lo are left as they are: row i of hi·M reads row i of hi only, and only rows 0 … 7
// of R are read). False, nothing written, when some |v| > 2^15 (see split_tile_hi_lo).
__device__ __forceinline__ bool split_rows_hi_lo(const float* v, __half* hi, __half* lo, int lane) {
  const float4 f = reinterpret_cast<const float4*>(v)[lane];
  const bool big = !(fabsf(f.x) <= 32768.0f && fabsf(f.y) <= 32768.0f && fabsf(f.z) <= 32768.0f &&
                     fabsf(f.w) <= 32768.0f);
  if (__any_sync(kFullMask, big)) return false;
  const __half2 h01 = __floats2half2_rn(f.x, f.y), h23 = __floats2half2_rn(f.z, f.w);
  const float2 b01 = __half22float2(h01), b23 = __half22float2(h23);
  const __half2 l01 = __floats2half2_rn(f.x - b01.x, f.y - b01.y), l23 = __floats2half2_rn(f.z - b23.x, f.w - b23.y);
  reinterpret_cast<__half2*>(hi)[2 * lane] = h01;
  reinterpret_cast<__half2*>(hi)[2 * lane + 1] = h23;
  reinterpret_cast<__half2*>(lo)[2 * lane] = l01;
  reinterpret_cast<__half2*>(lo)[2 * lane + 1] = l23;
  __syncwarp();
  return true;
}

template <int kWarps, int kTiles>
__global__ void __launch_bounds__(kWarps * 32)
reduction16_multisegment_kernel(const __half* __restrict__ x, float* __restrict__ out, long long num_segments,
                                long long segment_size) {
  static_assert(kTiles >= 1 && kTiles <= kTile, "a round fills at most the 16 rows of V");
  static_assert(kTiles == 8, "V, hi and lo reuse the first four staged tiles; split_rows_hi_lo takes 8 rows");
  __shared__ __align__(32) MultiSegmentConstants consts;
  __shared__ __align__(32) __half tiles[kWarps][kTiles][kTileElems];
  const int lane = lane_id();
  const int w = warp_in_block();

  // Shape of a round (all lanes, all warps the same).
  const int segs_per_row = segment_size >= kTileElems ? 1 : static_cast<int>(kTileElems / segment_size);
  const int rows_per_seg = kTile / segs_per_row;  // m: 16-element rows of V per segment (1 … 16)
  const int tau = segment_size > kTileElems ? static_cast<int>(segment_size / kTileElems) : 1;
  const int tau_shift = __ffs(tau) - 1;            // powers of two: shifts, not divisions
  const int spr_shift = __ffs(segs_per_row) - 1;
  const long long round_elems = static_cast<long long>(kTiles) * kTileElems;
  const int outs_per_round = static_cast<int>(round_elems / segment_size);

  for (int i = threadIdx.x; i < 32 * kTile; i += blockDim.x)
    consts.e_window[i] = __float2half(i / kTile == 15 ? 1.0f : 0.0f);
  for (int i = threadIdx.x; i < kTileElems; i += blockDim.x) {
    const int r = i / kTile, j = i % kTile;
    consts.m[i] = __float2half(j < segs_per_row && r / rows_per_seg == j ? 1.0f : 0.0f);
  }
  __syncthreads();

  float* vbuf = reinterpret_cast<float*>(&tiles[w][0][0]);  // 256 floats = staged tiles 0 and 1
  __half* hi = &tiles[w][2][0];
  __half* lo = &tiles[w][3][0];

  const long long total = num_segments * segment_size;
  const long long rounds = (total + round_elems - 1) / round_elems;
  const long long warps = static_cast<long long>(gridDim.x) * kWarps;
  auto load_round = [&](staging::Piece(&piece)[kTiles], long long round) {
#pragma unroll
    for (int k = 0; k < kTiles; ++k)  // kTiles coalesced 512-byte loads per warp
      piece[k] = staging::load_contiguous(x, total, round * round_elems + static_cast<long long>(k) * kTileElems,
                                          lane);
  };
  // Software pipeline: the loads of the warp's next round are issued as soon as this round's
  // pieces sit in shared memory, so they are in flight while this round is multiplied.
  staging::Piece piece[kTiles];
  long long round = static_cast<long long>(blockIdx.x) * kWarps + w;
  if (round < rounds) load_round(piece, round);
  for (; round < rounds; round += warps) {
#pragma unroll
    for (int k = 0; k < kTiles; ++k) staging::store_piece(tiles[w][k], piece[k], lane);
    __syncwarp();
    if (round + warps < rounds) load_round(piece, round + warps);

    Acc v;
    wmma::fill_fragment(v, 0.0f);
#pragma unroll
    for (int k = 0; k < kTiles; ++k) {
      FragBCol b;
      FragA e;
      wmma::load_matrix_sync(b, tiles[w][k], kTile);                           // column r = tile row r
      wmma::load_matrix_sync(e, consts.e_window + (15 - (k >> tau_shift)) * kTile, kTile);  // E_row(k)
      wmma::mma_sync(v, e, b, v);                                              // (1) V += E·B_k
    }
    __syncwarp();  // every lane is done with the tiles before V overwrites them
    wmma::store_matrix_sync(vbuf, v, kTile, wmma::mem_row_major);
    __syncwarp();

    const long long seg0 = round * outs_per_round;  // = e0 / segment_size
    if (rows_per_seg == 1) {  // segments of 16: V[k][r] is segment 16k + r of the round
      for (int o = lane; o < outs_per_round; o += 32)
        if (seg0 + o < num_segments) out[seg0 + o] = vbuf[o];
    } else if (split_rows_hi_lo(vbuf, hi, lo, lane)) {
      FragA a;
      FragBRow mfrag;  // loaded here, not kept: registers go to the next round's pieces
      Acc r;
      wmma::load_matrix_sync(mfrag, consts.m, kTile);
      wmma::fill_fragment(r, 0.0f);
      wmma::load_matrix_sync(a, hi, kTile);
      wmma::mma_sync(r, a, mfrag, r);  // (2) R  = hi·M
      wmma::load_matrix_sync(a, lo, kTile);
      wmma::mma_sync(r, a, mfrag, r);  //     R += lo·M
      wmma::store_matrix_sync(vbuf, r, kTile, wmma::mem_row_major);
      __syncwarp();
      for (int o = lane; o < outs_per_round; o += 32)
        if (seg0 + o < num_segments) out[seg0 + o] = vbuf[(o >> spr_shift) * kTile + (o & (segs_per_row - 1))];
    } else {  // a partial too large for fp16: the m entries of each segment in fp32
      for (int o = lane; o < outs_per_round; o += 32) {
        const float* row = vbuf + (o / segs_per_row) * kTile + (o % segs_per_row) * rows_per_seg;
        float t = 0.0f;
        for (int i = 0; i < rows_per_seg; ++i) t += row[i];
        if (seg0 + o < num_segments) out[seg0 + o] = t;
      }
    }
    __syncwarp();  // vbuf / hi / lo are the next round's tiles
  }
}

}  // namespace tcu::reduction
