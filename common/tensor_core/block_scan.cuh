#pragma once
// The block level, scan: Dakkak et al. Alg. 7 on the block tiles of block.cuh, the carry into the block
// tile from the caller. Segments restart every `size` elements; a *head* (a unit holding a segment
// start) passes on only its sum after its last start: a carry from before it stops there.
#include <cstdint>

#include "common/tensor_core/block.cuh"
#include "common/tensor_core/staging.cuh"

namespace tcu::tc {

struct Segments {  // where segments start in the flat array: every `size` elements (n: one segment)
  std::int64_t size;
  __device__ bool starts_at(std::int64_t e) const { return e % size == 0; }
  __device__ std::int64_t last_start_in(std::int64_t first, std::int64_t len) const {  // in [first, first + len)
    const std::int64_t s = ((first + len - 1) / size) * size;
    return s >= first ? s : -1;  // -1: none
  }
};

struct Flagged {  // a flagged sum: the value and whether its unit is a head
  float v;
  bool head;
};
enum class ScanOutput { inclusive, exclusive, segment_sums };  // segment_sums: out[s] = segment s's last prefix

// Alg. 7, step 1, by every warp: the total of its round (the kRoundTiles tiles at `round`), V = Σ P·A_k
// from the tile holding the round's last segment start (masked into ws.hi) on, then V's 16 sums.
template <bool kSegmented, class Ws>
__device__ __forceinline__ Flagged warp_round_total(Ws& ws, const __half* round, const FragA& pa,
                                                    std::int64_t round_first, std::int64_t total, const Segments& seg,
                                                    int lane) {
  const std::int64_t len = total - round_first < kRoundElems ? total - round_first : kRoundElems;
  const std::int64_t last = kSegmented ? seg.last_start_in(round_first, len) : -1;
  FragAcc v;
  wmma::fill_fragment(v, 0.0f);
  for (int k = 0; k < kRoundTiles; ++k) {
    const std::int64_t t0 = round_first + k * kTileElems;
    if (t0 >= total) break;
    if (t0 + kTileElems <= last) continue;  // wholly before the last start
    const __half* tile = round + k * kTileElems;
    if (last > t0) {  // the tile holding the last start: only the elements from it on
      for (int e = lane; e < kTileElems; e += kWarpSize) ws.hi[e] = (t0 + e >= last) ? tile[e] : __float2half(0.0f);
      __syncwarp();
      tile = ws.hi;
    }
    FragBRow a;
    wmma::load_matrix_sync(a, tile, kTile);
    wmma::mma_sync(v, pa, a, v);
    __syncwarp();
  }
  wmma::store_matrix_sync(ws.acc, v, kTile, wmma::mem_row_major);
  __syncwarp();
  const float t = row16_sum(ws.acc, lane);
  __syncwarp();
  return Flagged{t, last >= 0};
}

// Alg. 7, step 2, by warp 0: warp_carry(_head), the exclusive flagged scan of the warp totals, as
// row 0 of X·B: X's row 0 = the totals (split hi + lo; fp32 where they do not split), B[j][w] = 1
// when j < w and no warp j+1 … w−1 is a head. Returns the block tile's total.
template <class Sm, class Ws>
__device__ __forceinline__ Flagged warp_scan_warp_totals(Sm& sm, Ws& ws, int lane) {
  int first_from[kBlockWarps];  // the first warp whose total reaches warp w's carry
  int from = 0;
  bool any_head = false;
#pragma unroll
  for (int w = 0; w < kBlockWarps; ++w) {
    first_from[w] = from;
    if (lane == 0) sm.warp_carry_head[w] = any_head;
    if (sm.warp_head[w]) {
      from = w;
      any_head = true;
    }
  }
  for (int e = lane; e < kTileElems; e += kWarpSize) {
    const int j = e / kTile, w = e % kTile;
    sm.mask[e] = __float2half((w < kBlockWarps && j < w && j >= first_from[w]) ? 1.0f : 0.0f);
    ws.acc[e] = (e < kBlockWarps) ? sm.warp_total[e] : 0.0f;
  }
  __syncwarp();
  FragBRow b;
  wmma::load_matrix_sync(b, sm.mask, kTile);
  FragAcc r;
  wmma::fill_fragment(r, 0.0f);
  if (mma_split_operand(r, ws.acc, b, ws.hi, ws.lo, lane)) {
    __syncwarp();
    wmma::store_matrix_sync(ws.acc, r, kTile, wmma::mem_row_major);
    __syncwarp();
    if (lane < kBlockWarps) sm.warp_carry[lane] = ws.acc[lane];
  } else if (lane < kBlockWarps) {
    float c = 0.0f;
    for (int j = first_from[lane]; j < lane; ++j) c += sm.warp_total[j];
    sm.warp_carry[lane] = c;
  }
  __syncwarp();
  constexpr int kLast = kBlockWarps - 1;
  const Flagged block{sm.warp_head[kLast] ? sm.warp_total[kLast] : sm.warp_carry[kLast] + sm.warp_total[kLast],
                      any_head};
  __syncwarp();
  return block;
}

// Alg. 7, step 3, for one tile of a warp's round: scanned and written. A·U scans the 16 rows (unit =
// a row, 2 lanes) unless segment starts fall inside rows (unit = a lane, scanning its 8); a flagged
// shuffle scan of the unit totals gives each unit its offset; `carry` is added up to the first head.
template <class OutT, ScanOutput kOut, bool kSegmented, class Ws>
__device__ __forceinline__ Flagged scan_tile(Ws& ws, const __half* tile, const FragBRow& fu,
                                             std::int64_t t0, std::int64_t total, const Segments& seg,
                                             bool rows_aligned, Flagged carry, OutT* out, int lane) {
  const int e0 = lane * kPieceElems;
  const std::int64_t first = t0 + e0;  // the lane's first element
  float r[8];
  bool started[8], is_start[8];  // started[j]: a segment start in the unit up to element j; is_start[j]: at j
  int units_lanes;  // lanes per unit
  if (!kSegmented || rows_aligned) {
    units_lanes = 2;
    FragA a;
    FragAcc acc;
    wmma::load_matrix_sync(a, tile, kTile);
    wmma::fill_fragment(acc, 0.0f);
    wmma::mma_sync(acc, a, fu, acc);  // Scan16: every row of A scanned by A·U
    wmma::store_matrix_sync(ws.acc, acc, kTile, wmma::mem_row_major);
    __syncwarp();
#pragma unroll
    for (int j = 0; j < 8; ++j) r[j] = ws.acc[e0 + j];
    const bool row_head = kSegmented && seg.starts_at(t0 + (e0 & ~(kTile - 1)));
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      started[j] = row_head;
      is_start[j] = kSegmented && row_head && (lane & 1) == 0 && j == 0;
    }
  } else {
    units_lanes = 1;
    std::int64_t pos = first % seg.size;  // the position inside the segment
    const __half* h = tile + e0;
    float s = 0.0f;
    bool st = false;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      is_start[j] = (pos == 0);
      if (is_start[j]) {
        s = 0.0f;
        st = true;
      }
      s += __half2float(h[j]);
      r[j] = s;
      started[j] = st;
      if (++pos == seg.size) pos = 0;
    }
  }
  // The unit offsets: an inclusive flagged scan of the unit totals over the units, shifted.
  const int unit = lane / units_lanes, units = kWarpSize / units_lanes;
  float inc = units_lanes == 2 ? ws.acc[(lane / 2) * kTile + kTile - 1] : r[7];
  bool head = started[7];
  for (int d = 1; d < units; d *= 2) {
    const float o = __shfl_up_sync(kFullMask, inc, units_lanes * d);
    const bool oh = __shfl_up_sync(kFullMask, head, units_lanes * d);
    if (unit >= d) {
      if (!head) inc = o + inc;
      head = head || oh;
    }
  }
  float ex = __shfl_up_sync(kFullMask, inc, units_lanes);
  bool ex_head = __shfl_up_sync(kFullMask, head, units_lanes);
  if (unit == 0) {
    ex = 0.0f;
    ex_head = false;
  }
  float v[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) v[j] = started[j] ? r[j] : ex_head ? r[j] + ex : (r[j] + ex) + carry.v;
  const Flagged out_carry{__shfl_sync(kFullMask, v[7], kWarpSize - 1),
                          carry.head || static_cast<bool>(__any_sync(kFullMask, started[7] || ex_head))};
  float before = __shfl_up_sync(kFullMask, v[7], 1);  // the element before the lane's first
  if (lane == 0) before = carry.v;
  if (first < total) {
    if constexpr (kOut == ScanOutput::inclusive) {
      store8(out + first, v, total - first);
    } else if constexpr (kOut == ScanOutput::exclusive) {
      float x[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) x[j] = is_start[j] ? 0.0f : (j == 0 ? before : v[j - 1]);
      store8(out + first, x, total - first);
    } else {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const std::int64_t e = first + j;
        if (e < total && ((e + 1) % seg.size == 0 || e + 1 == total)) out[e / seg.size] = from_float<OutT>(v[j]);
      }
    }
  }
  __syncwarp();  // ws.acc is the next tile's scratch
  return out_carry;
}

// The warp's round of the block tile at tile_first: into registers (8 lane loads), then shared memory.
__device__ __forceinline__ void load_block_tile(const __half* in, std::int64_t total, std::int64_t tile_first,
                                                bool in_aligned, Piece (&piece)[kRoundTiles]) {
  const std::int64_t round_first = tile_first + static_cast<std::int64_t>(warp_in_block()) * kRoundElems;
#pragma unroll
  for (int k = 0; k < kRoundTiles; ++k)
    piece[k] = load_contiguous<Cache::streaming>(in, total, round_first + k * kTileElems, lane_id(), in_aligned);
}
__device__ __forceinline__ void stage_block_tile(BlockSmem& sm, const Piece (&piece)[kRoundTiles]) {
#pragma unroll
  for (int k = 0; k < kRoundTiles; ++k) store_piece(sm.warp[warp_in_block()].round[k], piece[k], lane_id());
  __syncwarp();
}

// Alg. 7 for the staged block tile [tile_first, tile_first + kBlockTileElems) of in[0 … total): step 1,
// barrier, step 2 and `block_carry(block_total, lane)` (warp 0, collective: the carry into the block
// tile), barrier, `before_tiles()`, step 3, barrier. The warp's round: ws.round, or `round` if given.
template <class OutT, ScanOutput kOut, bool kSegmented, class Sm, class BlockCarry, class Hook>
__device__ __forceinline__ void scan_staged_block_tile(Sm& sm, OutT* out, std::int64_t tile_first, std::int64_t total,
                                                       const Segments& seg, BlockCarry&& block_carry,
                                                       Hook&& before_tiles, const __half* round = nullptr) {
  const int lane = lane_id(), warp = warp_in_block();
  auto& ws = sm.warp[warp];
  if (!round) round = ws.round[0];
  const std::int64_t round_first = tile_first + static_cast<std::int64_t>(warp) * kRoundElems;
  FragA pa;
  wmma::load_matrix_sync(pa, sm.p, kTile);
  const Flagged wt = warp_round_total<kSegmented>(ws, round, pa, round_first, total, seg, lane);
  if (lane == 0) {
    sm.warp_total[warp] = wt.v;
    sm.warp_head[warp] = wt.head;
  }
  block_tile_sync();
  if (warp == 0) {
    const float c = block_carry(warp_scan_warp_totals(sm, ws, lane), lane);
    if (lane == 0) sm.block_carry = c;
  }
  block_tile_sync();
  before_tiles();
  Flagged carry{sm.warp_carry_head[warp] ? sm.warp_carry[warp] : sm.block_carry + sm.warp_carry[warp],
                static_cast<bool>(sm.warp_carry_head[warp])};
  FragBRow fu;
  wmma::load_matrix_sync(fu, sm.u, kTile);
  const bool rows_aligned = !kSegmented || seg.size % kTile == 0;
  for (int k = 0; k < kRoundTiles; ++k) {
    const std::int64_t t0 = round_first + k * kTileElems;
    if (t0 >= total) break;
    carry = scan_tile<OutT, kOut, kSegmented>(ws, round + k * kTileElems, fu, t0, total, seg, rows_aligned, carry, out,
                                              lane);
  }
  block_tile_sync();  // the shared memory is free again
}

}  // namespace tcu::tc
