#pragma once
// The block level of chapter 05, shared by every kernel of the chapter: a block of kBlockWarps
// warps and its "block tile" of kBlockTileElems consecutive elements (warp w owns the round of
// kRoundTiles 256-element tiles at w·kRoundElems), and the two block algorithms of Dakkak et al.
// on tensor cores:
//
//   block_reduce_range   Alg. 4: each warp V += P·A over its tiles, row 0 of V summed into the
//                        warp's partial; barrier; one warp sums the partials with X·Pᵀ
//   scan_block_tile      Alg. 7: each warp's total (P·A), barrier, one warp scans the warp
//                        totals (X·U', hi/lo split), the block's carry-in (from the caller: a
//                        running sum, a scanned total, or the decoupled look-back), barrier,
//                        every warp scans its tiles (A·U + row offsets by shuffles) and writes
//
// Segments (a scan that restarts every `segment_size` elements of the flat array) are handled
// with "head" flags: a unit (row, lane, tile, warp, block) that holds a segment start carries
// only the sum after its last start, and the carry from before it stops there.
#include <cuda_fp16.h>

#include <cstdint>

#include "common/int_math.hpp"
#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/staging.cuh"

namespace tcu::detail::device {

namespace tc = tcu::tc;

using tc::kBlockThreads;  // the block of the block level, defined once (common/tensor_core/tile_geometry.hpp)
using tc::kBlockWarps;
inline constexpr int kRoundTiles = 8;                                        // tiles a warp stages at once
inline constexpr int kRoundElems = kRoundTiles * tc::kTileElems;             // 2048
inline constexpr int kBlockTileElems = kBlockWarps * kRoundElems;            // 16384
static_assert(kBlockWarps <= tc::kTile, "the warp totals fit in one row of a tile");
static_assert(is_pow2(kBlockTileElems), "block tiles are a power of two");

// A warp's shared memory: the staged round and the scratch of its MMAs.
struct alignas(128) WarpSmem {
  __half round[kRoundTiles][tc::kTileElems];  // the staged 2048 elements
  float acc[tc::kTileElems];                  // an fp32 accumulator stored for the lanes
  __half hi[tc::kTileElems], lo[tc::kTileElems];  // hi/lo split of an fp32 tile (and a masked tile)
};

struct alignas(128) BlockSmem {
  WarpSmem warp[kBlockWarps];
  __half p[tc::kTileElems];      // the constant P (row 0 ones); as FragBCol it is Pᵀ
  __half u[tc::kTileElems];      // the constant U (upper triangle with the diagonal)
  __half mask[tc::kTileElems];   // Alg. 7's scan matrix of the warp totals, built per block tile
  float warp_total[kBlockWarps];
  float warp_carry[kBlockWarps];  // exclusive, within the block tile (flagged)
  int warp_head[kBlockWarps];     // the warp's range holds a segment start
  int warp_carry_head[kBlockWarps];
  float block_total;
  int block_head;
  float block_carry;  // carry into the block tile (from its caller)
  long long ticket, next_ticket;
};

// P and U into shared memory (whole block), before the first __syncthreads().
__device__ __forceinline__ void write_block_constants(BlockSmem& sm) {
  tc::write_constant_tile(sm.p, tc::ConstantMatrix::P, threadIdx.x, blockDim.x);
  tc::write_constant_tile(sm.u, tc::ConstantMatrix::U, threadIdx.x, blockDim.x);
}

// ---- Segments -------------------------------------------------------------------------------

// Where segments start in the flat array: every `size` elements (size = n: one segment).
struct Segments {
  std::int64_t size;
  __device__ bool starts_at(std::int64_t e) const { return e % size == 0; }
  // The last segment start in [first, first + len), or -1.
  __device__ std::int64_t last_start_in(std::int64_t first, std::int64_t len) const {
    const std::int64_t s = ((first + len - 1) / size) * size;
    return s >= first ? s : -1;
  }
};

// ---- Alg. 4: block reduction ----------------------------------------------------------------

// Alg. 4, last step: one warp sums the block's kBlockWarps warp partials on the tensor cores,
// R = X·Pᵀ with X's row 0 = the partials (fp32, so X splits into hi + lo); R[0][0] is the sum.
// Partials above 2^15 do not split: then the same sum in fp32 on the CUDA cores.
__device__ __forceinline__ float warp_sum_partials(BlockSmem& sm, WarpSmem& ws, int lane) {
  for (int e = lane; e < tc::kTileElems; e += tc::kWarpSize)
    ws.acc[e] = (e < kBlockWarps) ? sm.warp_total[e] : 0.0f;
  __syncwarp();
  tc::FragBCol pt;
  tc::wmma::load_matrix_sync(pt, sm.p, tc::kTile);  // P's memory read col-major is Pᵀ
  tc::FragAcc r;
  tc::wmma::fill_fragment(r, 0.0f);
  float sum;
  if (tc::mma_split_operand(r, ws.acc, pt, ws.hi, ws.lo, lane)) {
    __syncwarp();
    tc::wmma::store_matrix_sync(ws.acc, r, tc::kTile, tc::wmma::mem_row_major);
    __syncwarp();
    sum = ws.acc[0];
  } else {
    sum = 0.0f;
    for (int w = 0; w < kBlockWarps; ++w) sum += sm.warp_total[w];
  }
  __syncwarp();
  return sum;
}

// The sum of p[first … first + len) by the whole block (Alg. 4). Warp w walks the rounds w,
// w + kBlockWarps, … of the range, the next round's loads in flight (run_round_pipeline), and
// accumulates V += P·A for every tile (V's row 0: 16 column sums). Thread 0 gets the sum; the
// block's shared memory is free again on return.
__device__ __forceinline__ float block_reduce_range(BlockSmem& sm, const __half* p, std::int64_t len) {
  const int lane = tc::lane_id(), warp = tc::warp_in_block();
  WarpSmem& ws = sm.warp[warp];
  tc::FragA pa;
  tc::wmma::load_matrix_sync(pa, sm.p, tc::kTile);
  float column = 0.0f;  // lane c < 16: column c of the warp's V, summed over its rounds in fp32
  const bool aligned = tc::aligned16(p);
  tc::Piece piece[kRoundTiles];
  tc::run_round_pipeline(
      tc::StridedRounds{warp, kBlockWarps, ceil_div(len, kRoundElems)},
      [&](const tc::StridedRounds& r) {
#pragma unroll
        for (int k = 0; k < kRoundTiles; ++k)
          piece[k] = tc::load_contiguous<tc::Cache::streaming>(p, len, r.round * kRoundElems + k * tc::kTileElems,
                                                                lane, aligned);
      },
      [&] {
#pragma unroll
        for (int k = 0; k < kRoundTiles; ++k) tc::store_piece(ws.round[k], piece[k], lane);
      },
      [&](const tc::StridedRounds&) {
        // Dakkak Reduction256N over the round, V = Σ_k P·A_k (row 0: 16 column sums), then the
        // column sums are added in fp32 by the lanes. A chain of 8 MMAs at most: the tensor
        // cores' fp32 additions truncate, and a chain as long as the warp's share (hundreds of
        // tiles) would drift towards zero.
        tc::FragAcc v;
        tc::wmma::fill_fragment(v, 0.0f);
#pragma unroll
        for (int k = 0; k < kRoundTiles; ++k) {
          tc::FragBRow a;
          tc::wmma::load_matrix_sync(a, ws.round[k], tc::kTile);
          tc::wmma::mma_sync(v, pa, a, v);
        }
        tc::wmma::store_matrix_sync(ws.acc, v, tc::kTile, tc::wmma::mem_row_major);
        __syncwarp();
        if (lane < tc::kTile) column += ws.acc[lane];
      });
  __syncwarp();
  if (lane < tc::kTile) ws.acc[lane] = column;
  __syncwarp();
  const float partial = tc::row16_sum(ws.acc, lane);  // Alg. 4: the warp's partial
  if (lane == 0) sm.warp_total[warp] = partial;
  __syncthreads();  // Alg. 4: the barrier the published kernels lack
  float sum = 0.0f;
  if (warp == 0) sum = warp_sum_partials(sm, ws, lane);
  __syncthreads();  // the partials and the scratch are free again
  return sum;
}

// ---- Alg. 7: block scan ---------------------------------------------------------------------

// The flagged sum a ⊕ b of a segmented scan: b's value alone when b holds a segment start.
struct Flagged {
  float v;
  bool head;
};

// The warp's total of its round (the sum after its last segment start, when it holds one) on
// the tensor cores: V = Σ P·A_k over the tiles from the one holding the last start (masked in
// the scratch tile) to the end, then the 16 column sums of V's row 0.
template <bool kSegmented>
__device__ __forceinline__ Flagged warp_round_total(BlockSmem& sm, WarpSmem& ws, const tc::FragA& pa,
                                                    std::int64_t round_first, std::int64_t total,
                                                    const Segments& seg, int lane) {
  std::int64_t last = -1;
  if constexpr (kSegmented) {
    const std::int64_t len = total - round_first < kRoundElems ? total - round_first : kRoundElems;
    last = seg.last_start_in(round_first, len);
  }
  tc::FragAcc v;
  tc::wmma::fill_fragment(v, 0.0f);
  for (int k = 0; k < kRoundTiles; ++k) {
    const std::int64_t t0 = round_first + k * tc::kTileElems;
    if (t0 >= total) break;
    if (t0 + tc::kTileElems <= last) continue;  // wholly before the last start
    const __half* tile = ws.round[k];
    if (last > t0) {  // the tile holding the last start: only the elements from it on
      for (int e = lane; e < tc::kTileElems; e += tc::kWarpSize)
        ws.hi[e] = (t0 + e >= last) ? ws.round[k][e] : __float2half(0.0f);
      __syncwarp();
      tile = ws.hi;
    }
    tc::FragBRow a;
    tc::wmma::load_matrix_sync(a, tile, tc::kTile);
    tc::wmma::mma_sync(v, pa, a, v);
    __syncwarp();
  }
  tc::wmma::store_matrix_sync(ws.acc, v, tc::kTile, tc::wmma::mem_row_major);
  __syncwarp();
  const float t = tc::row16_sum(ws.acc, lane);
  __syncwarp();
  (void)sm;
  return Flagged{t, last >= 0};
}

// Alg. 7, middle step, by warp 0: the exclusive (flagged) scan of the kBlockWarps warp totals
// as one MMA row: X's row 0 = the totals, B[j][w] = 1 when warp j's total belongs to warp w's
// carry (j < w, no segment start in warps j+1 … w−1), carry = row 0 of X·B (X split hi + lo).
// Totals above 2^15 do not split: the same sums in fp32. Returns the block's total (flagged).
__device__ __forceinline__ Flagged warp_scan_warp_totals(BlockSmem& sm, WarpSmem& ws, int lane) {
  int first_from[kBlockWarps];  // first warp whose total reaches warp w's carry
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
  for (int e = lane; e < tc::kTileElems; e += tc::kWarpSize) {
    const int j = e / tc::kTile, w = e % tc::kTile;
    sm.mask[e] = __float2half((w < kBlockWarps && j < w && j >= first_from[w]) ? 1.0f : 0.0f);
    ws.acc[e] = (e < kBlockWarps) ? sm.warp_total[e] : 0.0f;
  }
  __syncwarp();
  tc::FragBRow b;
  tc::wmma::load_matrix_sync(b, sm.mask, tc::kTile);
  tc::FragAcc r;
  tc::wmma::fill_fragment(r, 0.0f);
  if (tc::mma_split_operand(r, ws.acc, b, ws.hi, ws.lo, lane)) {
    __syncwarp();
    tc::wmma::store_matrix_sync(ws.acc, r, tc::kTile, tc::wmma::mem_row_major);
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

// What a scan writes: the prefix sums (inclusive or exclusive) or, for a segmented reduction,
// only the last inclusive prefix of every segment (out[segment]).
enum class ScanOutput { inclusive, exclusive, segment_sums };

// One 256-element tile of a warp's round, scanned and written: A·U scans the 16 rows on the
// tensor cores (when segment starts fall on row starts: unit = row of 2 lanes); otherwise each
// lane scans its own 8 elements (unit = lane). Then a flagged scan of the unit totals over the
// lanes gives each unit its offset, and `carry` (the sum before the tile, flagged) is added where
// no segment start lies between the tile's first element and the element. Returns the carry out.
template <class OutT, ScanOutput kOut, bool kSegmented>
__device__ __forceinline__ Flagged scan_tile(WarpSmem& ws, const __half* tile, const tc::FragBRow& fu,
                                             std::int64_t t0, std::int64_t total, const Segments& seg,
                                             bool rows_aligned, Flagged carry, OutT* out, int lane) {
  const int e0 = lane * tc::kPieceElems;
  const std::int64_t first = t0 + e0;  // this lane's first element
  float r[8];
  bool started[8];  // a segment start lies between the unit's first element and element j
  bool is_start[8];
  int units_lanes;  // lanes per unit: 2 (rows) or 1 (lanes)
  if (!kSegmented || rows_aligned) {
    units_lanes = 2;
    tc::FragA a;
    tc::FragAcc acc;
    tc::wmma::load_matrix_sync(a, tile, tc::kTile);
    tc::wmma::fill_fragment(acc, 0.0f);
    tc::wmma::mma_sync(acc, a, fu, acc);  // Scan16: every row of A scanned by A·U
    tc::wmma::store_matrix_sync(ws.acc, acc, tc::kTile, tc::wmma::mem_row_major);
    __syncwarp();
    const float4 r0 = reinterpret_cast<const float4*>(ws.acc + e0)[0];
    const float4 r1 = reinterpret_cast<const float4*>(ws.acc + e0)[1];
    r[0] = r0.x; r[1] = r0.y; r[2] = r0.z; r[3] = r0.w;
    r[4] = r1.x; r[5] = r1.y; r[6] = r1.z; r[7] = r1.w;
    const bool row_head = kSegmented && seg.starts_at(t0 + (e0 & ~(tc::kTile - 1)));
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      started[j] = row_head;
      is_start[j] = kSegmented && row_head && (lane & 1) == 0 && j == 0;
    }
  } else {
    units_lanes = 1;
    std::int64_t pos = first % seg.size;  // position inside the segment
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
  // Flagged inclusive scan of the unit totals over the units (lanes 2u, 2u+1 share a row).
  const int unit = lane / units_lanes, units = tc::kWarpSize / units_lanes;
  float inc = units_lanes == 2 ? ws.acc[(lane / 2) * tc::kTile + tc::kTile - 1] : r[7];
  bool head = started[7];
  for (int d = 1; d < units; d *= 2) {
    const float o = __shfl_up_sync(tc::kFullMask, inc, units_lanes * d);
    const bool oh = __shfl_up_sync(tc::kFullMask, head, units_lanes * d);
    if (unit >= d) {
      if (!head) inc = o + inc;
      head = head || oh;
    }
  }
  float ex = __shfl_up_sync(tc::kFullMask, inc, units_lanes);
  bool ex_head = __shfl_up_sync(tc::kFullMask, head, units_lanes);
  if (unit == 0) {
    ex = 0.0f;
    ex_head = false;
  }
  float v[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) v[j] = started[j] ? r[j] : ex_head ? r[j] + ex : (r[j] + ex) + carry.v;
  // The carry out: the tile's last inclusive prefix (flagged with any start in the tile).
  const Flagged out_carry{__shfl_sync(tc::kFullMask, v[7], tc::kWarpSize - 1),
                          carry.head || static_cast<bool>(__any_sync(tc::kFullMask, started[7] || ex_head))};
  float before = __shfl_up_sync(tc::kFullMask, v[7], 1);  // exclusive: the element before the lane's first
  if (lane == 0) before = carry.v;
  if (first < total) {
    if constexpr (kOut == ScanOutput::inclusive) {
      tc::store8(out + first, v, total - first);
    } else if constexpr (kOut == ScanOutput::exclusive) {
      float x[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) x[j] = is_start[j] ? 0.0f : (j == 0 ? before : v[j - 1]);
      tc::store8(out + first, x, total - first);
    } else {  // segment sums: the last element of every segment
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const std::int64_t e = first + j;
        if (e < total && ((e + 1) % seg.size == 0 || e + 1 == total)) out[e / seg.size] = tc::from_float<OutT>(v[j]);
      }
    }
  }
  __syncwarp();  // ws.acc is the next tile's scratch
  return out_carry;
}

// A warp's round of block tile [tile_first, …): 8 loads of 16 bytes per lane, issued together.
__device__ __forceinline__ void load_block_tile(const __half* in, std::int64_t total, std::int64_t tile_first,
                                                bool in_aligned, tc::Piece (&piece)[kRoundTiles]) {
  const int lane = tc::lane_id();
  const std::int64_t round_first = tile_first + static_cast<std::int64_t>(tc::warp_in_block()) * kRoundElems;
#pragma unroll
  for (int k = 0; k < kRoundTiles; ++k)
    piece[k] = tc::load_contiguous<tc::Cache::streaming>(in, total, round_first + k * tc::kTileElems, lane, in_aligned);
}
__device__ __forceinline__ void stage_block_tile(BlockSmem& sm, const tc::Piece (&piece)[kRoundTiles]) {
  WarpSmem& ws = sm.warp[tc::warp_in_block()];
#pragma unroll
  for (int k = 0; k < kRoundTiles; ++k) tc::store_piece(ws.round[k], piece[k], tc::lane_id());
  __syncwarp();
}

// Alg. 7 for one staged block tile [tile_first, tile_first + kBlockTileElems) of the flat array
// in[0 … total): warp totals (P·A), barrier, warp 0 scans the warp totals and asks
// `block_carry(block_total, lane)` (warp 0, collective) for the carry into the tile, barrier,
// every warp scans its 8 tiles with its carry and writes them. Ends with a barrier.
// `before_tiles()` runs in every thread after the second barrier (the look-back's caller
// issues the next tile's loads there).
struct NoHook {
  __device__ void operator()() const {}
};
template <class OutT, ScanOutput kOut, bool kSegmented, class BlockCarry, class Hook = NoHook>
__device__ __forceinline__ void scan_staged_block_tile(BlockSmem& sm, OutT* out, std::int64_t tile_first,
                                                       std::int64_t total, const Segments& seg,
                                                       BlockCarry&& block_carry, Hook&& before_tiles = Hook{}) {
  const int lane = tc::lane_id(), warp = tc::warp_in_block();
  WarpSmem& ws = sm.warp[warp];
  const std::int64_t round_first = tile_first + static_cast<std::int64_t>(warp) * kRoundElems;
  tc::FragA pa;
  tc::wmma::load_matrix_sync(pa, sm.p, tc::kTile);
  const Flagged wt = warp_round_total<kSegmented>(sm, ws, pa, round_first, total, seg, lane);
  if (lane == 0) {
    sm.warp_total[warp] = wt.v;
    sm.warp_head[warp] = wt.head;
  }
  __syncthreads();  // Alg. 7: every warp total is in shared memory
  if (warp == 0) {
    const Flagged bt = warp_scan_warp_totals(sm, ws, lane);
    const float c = block_carry(bt, lane);
    if (lane == 0) sm.block_carry = c;
  }
  __syncthreads();  // the carries are in shared memory
  before_tiles();
  Flagged carry{sm.warp_carry_head[warp] ? sm.warp_carry[warp] : sm.block_carry + sm.warp_carry[warp],
                static_cast<bool>(sm.warp_carry_head[warp])};
  tc::FragBRow fu;
  tc::wmma::load_matrix_sync(fu, sm.u, tc::kTile);
  const bool rows_aligned = !kSegmented || seg.size % tc::kTile == 0;
  for (int k = 0; k < kRoundTiles; ++k) {
    const std::int64_t t0 = round_first + k * tc::kTileElems;
    if (t0 >= total) break;
    carry = scan_tile<OutT, kOut, kSegmented>(ws, ws.round[k], fu, t0, total, seg, rows_aligned, carry, out, lane);
  }
  __syncthreads();  // the block's shared memory is free again
}

// Load, stage and scan one block tile (no loads in flight across tiles).
template <class OutT, ScanOutput kOut, bool kSegmented, class BlockCarry>
__device__ __forceinline__ void scan_block_tile(BlockSmem& sm, const __half* in, OutT* out, std::int64_t tile_first,
                                                std::int64_t total, const Segments& seg, bool in_aligned,
                                                BlockCarry&& block_carry) {
  {
    tc::Piece piece[kRoundTiles];
    load_block_tile(in, total, tile_first, in_aligned, piece);
    stage_block_tile(sm, piece);
  }
  scan_staged_block_tile<OutT, kOut, kSegmented>(sm, out, tile_first, total, seg, block_carry);
}

}  // namespace tcu::detail::device
