#pragma once
// Single-pass scan with decoupled look-back (Merrill & Garland, NVR-2016-002), the block-local
// work on tensor cores (block_tile.cuh, Alg. 7). docs/algorithms.md#block-and-grid-level.
//
// Every block takes a ticket from an atomic counter (dynamic block numbering: the tiles are
// handed out in the order the blocks start, so a block only ever waits for blocks that are
// already running) and scans block tile `ticket`. Its status word goes through three states:
//
//     X (not ready) ──► A (aggregate: the tile's own sum) ──► P (inclusive prefix)
//
// Warp 0 publishes A as soon as the tile's total is known (P at once for tile 0, and for a tile
// that holds a segment start: its sum after the start is already an inclusive prefix of that
// segment), then reads the predecessors' words 4 × 32 at a time, newest first, adding their values
// until it meets a P, publishes its own P and hands the carry to the block. Flag and value
// share one 64-bit word (no torn reads), so the words need no ordering among themselves
// (relaxed atomics; see kLookbackRelaxed).
//
// Determinism: which predecessors are still A and which already P when a block looks changes
// from run to run, so the carry is summed in a different order each time. In floating point
// that changes the last bits. The words therefore hold the values in fixed point (an integer
// count of 2^-f, f <= 24 chosen from the segment length so that no prefix can overflow 62 bits):
// integer addition is associative, the carry is the same integer whatever the order, and it is
// converted to fp32 once. Every fp16 value is a multiple of 2^-24, so with f = 24 (segments up
// to 2^20) the carry is exact.
#include <cuda/atomic>

#include "05_block_grid/kernels/block_tile.cuh"
#include "05_block_grid/kernels/launch_block.cuh"

namespace tcu::detail::device {

enum TileState : unsigned { kStateX = 0, kStateA = 1, kStateP = 2 };

struct StatusWord {
  __device__ static unsigned long long pack(long long q, unsigned state) {
    return (static_cast<unsigned long long>(q) << 2) | state;
  }
  __device__ static unsigned state(unsigned long long w) { return static_cast<unsigned>(w & 3u); }
  __device__ static long long value(unsigned long long w) { return static_cast<long long>(w) >> 2; }
};

// fp32 <-> fixed point with f fractional bits (scale = 2^f, exact in fp32).
struct FixedPoint {
  float scale, inv_scale;
  __device__ long long to_fixed(float v) const { return __float2ll_rn(v * scale); }
  __device__ float to_float(long long q) const { return __ll2float_rn(q) * inv_scale; }
};

// Fractional bits for prefixes of at most `segment_len` fp16 values (|x| < 2^16): the prefix
// needs log2(len) + 16 integer bits, the word holds 62 signed bits (2 spare).
inline int fixed_point_bits(std::int64_t segment_len) {
  int lg = 0;
  while ((std::int64_t(1) << lg) < segment_len && lg < 62) ++lg;
  const int f = 60 - (lg + 16);
  return f > 24 ? 24 : f;
}
inline FixedPoint fixed_point_for(std::int64_t segment_len) {
  const int f = fixed_point_bits(segment_len);
  float scale = 1.0f;
  for (int i = 0; i < f; ++i) scale *= 2.0f;
  for (int i = 0; i > f; --i) scale *= 0.5f;
  return FixedPoint{scale, 1.0f / scale};
}

// How the look-back reads its predecessors: kLookbackWindows windows of 32 status words per
// step (each lane loads one word of every window, all loads in flight together), and whether
// the status words are loaded and stored relaxed or with acquire/release ordering. Relaxed is
// enough: a word carries its own value (flag and value in one 64-bit atomic), so no other
// memory has to become visible with it (an ordered store may also have to wait for the block's
// earlier output stores). Measured: relaxed words were faster (most with fp16 outputs) and four
// windows slightly faster than one (a long look-back takes fewer steps); drawing the next
// ticket before the look-back, or prefetching the next tile into L2, was slower.
inline constexpr int kLookbackWindows = 4;
inline constexpr bool kLookbackRelaxed = true;

// The look-back of block tile `tile` by warp 0 (collective): publishes the tile's total, returns
// the carry into the tile. `needs_carry` is false when the tile's first element starts a segment.
// Each step reads the kWindows·32 predecessors [end − kWindows·32, end) (window j, newest first,
// is [end − 32(j+1), end − 32j)), waits until none newer than the newest P among them is still
// X, and adds the values from that P on (all of them when there is no P: then one more step).
__device__ __forceinline__ float decoupled_lookback(unsigned long long* status, long long tile, Flagged total,
                                                   bool needs_carry, const FixedPoint& fx, int lane) {
  using Ref = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;
  constexpr int kWindows = kLookbackWindows;
  constexpr bool kRelaxed = kLookbackRelaxed;
  constexpr auto kLoad = kRelaxed ? cuda::memory_order_relaxed : cuda::memory_order_acquire;
  constexpr auto kStore = kRelaxed ? cuda::memory_order_relaxed : cuda::memory_order_release;
  const long long own = fx.to_fixed(total.v);
  const bool own_is_prefix = tile == 0 || total.head;
  if (lane == 0) Ref(status[tile]).store(StatusWord::pack(own, own_is_prefix ? kStateP : kStateA), kStore);
  long long carry = 0;
  if (needs_carry && tile > 0) {
    for (long long end = tile;; end -= kWindows * tc::kWarpSize) {
      unsigned long long w[kWindows];
#pragma unroll
      for (int j = 0; j < kWindows; ++j) {
        const long long i = end - (j + 1) * tc::kWarpSize + lane;
        w[j] = i >= 0 ? Ref(status[i]).load(kLoad) : StatusWord::pack(0, kStateP);
      }
      int window_p, newest_p;  // the window and lane of the newest P (window_p = kWindows: none)
      for (;;) {
        window_p = kWindows;
        newest_p = -1;
        bool blocked = false;  // an X newer than the newest P
#pragma unroll
        for (int j = 0; j < kWindows; ++j) {
          const unsigned p = __ballot_sync(tc::kFullMask, StatusWord::state(w[j]) == kStateP);
          const unsigned x = __ballot_sync(tc::kFullMask, StatusWord::state(w[j]) == kStateX);
          if (window_p == kWindows) {
            const int np = p ? 31 - __clz(p) : -1;
            const unsigned newer = np < 0 ? tc::kFullMask : (np == 31 ? 0u : tc::kFullMask << (np + 1));
            blocked = blocked || (x & newer) != 0;
            if (p) {
              window_p = j;
              newest_p = np;
            }
          }
        }
        if (!blocked) break;
        __nanosleep(32);
#pragma unroll
        for (int j = 0; j < kWindows; ++j) {
          const long long i = end - (j + 1) * tc::kWarpSize + lane;
          if (StatusWord::state(w[j]) == kStateX) w[j] = Ref(status[i]).load(kLoad);
        }
      }
      long long q = 0;
#pragma unroll
      for (int j = 0; j < kWindows; ++j)
        if (j < window_p || (j == window_p && lane >= newest_p)) q += StatusWord::value(w[j]);
#pragma unroll
      for (int d = tc::kWarpSize / 2; d > 0; d /= 2) q += __shfl_xor_sync(tc::kFullMask, q, d);
      carry += q;
      if (window_p < kWindows) break;
    }
    if (lane == 0 && !own_is_prefix) Ref(status[tile]).store(StatusWord::pack(carry + own, kStateP), kStore);
  }
  return fx.to_float(carry);
}

// The single-pass scan: a resident grid; each block draws tickets (block tile numbers) until
// they run out. The NEXT ticket is drawn by warp 0 right after its look-back, and the next
// tile's loads are issued into registers before this tile's scans and stores, so they are in
// flight meanwhile. (Drawing it earlier would leave the next tile unpublished, X, while this one
// waits in its look-back: successors would wait in a chain.) Deadlock-free: a block never waits
// for a tile before finishing the one it holds, and every tile it waits for is held by a running
// block. `state` holds the ticket counter (state[0]) and one status word per tile, all zero (X)
// before the launch.
template <class OutT, ScanOutput kOut, bool kSegmented>
__global__ void __launch_bounds__(kBlockThreads, 3)
    lookback_scan_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t total,
                         std::int64_t segment_size, unsigned long long* state, FixedPoint fx) {
  BlockSmem& sm = block_smem();
  if (threadIdx.x == 0) sm.ticket = static_cast<long long>(atomicAdd(state, 1ull));
  write_block_constants(sm);
  __syncthreads();
  const long long tiles = ceil_div(total, kBlockTileElems);
  const Segments seg{segment_size};
  const bool aligned = tc::aligned16(in);
  long long tile = sm.ticket;
  tc::Piece piece[kRoundTiles];
  if (tile < tiles) load_block_tile(in, total, tile * kBlockTileElems, aligned, piece);
  while (tile < tiles) {
    stage_block_tile(sm, piece);
    const std::int64_t tile_first = tile * kBlockTileElems;
    const bool needs_carry = !seg.starts_at(tile_first);
    long long next = 0;
    scan_staged_block_tile<OutT, kOut, kSegmented>(
        sm, out, tile_first, total, seg,
        [&](Flagged block_total, int lane) {
          const float carry = decoupled_lookback(state + 1, tile, block_total, needs_carry, fx, lane);
          if (lane == 0) sm.next_ticket = static_cast<long long>(atomicAdd(state, 1ull));
          return carry;
        },
        [&] {
          next = sm.next_ticket;
          if (next < tiles) load_block_tile(in, total, next * kBlockTileElems, aligned, piece);  // in flight
        });
    tile = next;
  }
}

// Launch for n elements in segments of segment_size (n: one segment). Temporary memory: one
// word per block tile, from the library's pool.
template <class OutT, ScanOutput kOut, bool kSegmented>
cudaError_t launch_lookback_scan(const __half* in, OutT* out, std::int64_t n, std::int64_t segment_size,
                                 cudaStream_t stream);

}  // namespace tcu::detail::device
