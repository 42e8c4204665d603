// Lesson 3c — lesson 3b taken apart for Hopper: warp specialisation. In 3b a block loads its next
// block tile only after its look-back, and its eight warps wait while warp 0 looks back. Here each
// warp has one job:
//   warp 8, the producer: draws the tickets and streams block tiles into a ring of kStages
//     shared-memory stages by bulk copies (cp.async.bulk, completing the stage's mbarrier);
//   warps 0 … 7, the consumers: Alg. 7 with the tiles in registers (register_scan.cuh). Steps 1
//     and 2 of block tile i, then step 3 of block tile i − 1, whose carry is ready by then;
//   warp 9, the look-back: each block tile's look-back from the moment its ticket is drawn (the
//     carry needs only the predecessors), its P as soon as steps 1 and 2 give its total.
// No warp waits for a look-back unless it takes longer than loading and scanning a block tile.
// An input off a 16-byte boundary, or a GPU before sm_90, runs lesson 3b (the dispatch).
#include "common/tensor_core/block.cuh"
#include "common/tensor_core/lookback.cuh"
#include "common/tensor_core/register_scan.cuh"

namespace tcu::detail::device {
namespace {

inline constexpr int kProducer = tc::kBlockWarps, kLookBack = kProducer + 1;  // warps 8 and 9
inline constexpr int kThreads = (kLookBack + 1) * tc::kWarpSize;
inline constexpr int kConsumerThreads = tc::kBlockThreads, kWarp = tc::kWarpSize;
static_assert(kConsumerThreads + 2 * kWarp == kThreads, "eight consumers, a producer, a look-back warp");
// The ring and the blocks per SM, by the results' type. fp32: two stages (block tile i − 1 in step 3
// while i is in steps 1 and 2), three blocks per SM: more consumer warps per SM beat a third stage.
// fp16: half the bytes written per block tile, so the loads' latency shows: a third stage (two
// blocks per SM), and each ticket drawn a block tile ahead, its bytes prefetched into L2.
template <class OutT>
struct Pipe {
  static constexpr bool kPrefetch = sizeof(OutT) == 2;  // and draw each ticket a block tile ahead
  static constexpr int kStages = kPrefetch ? 3 : 2, kBlocksPerSm = kPrefetch ? 2 : 3;
};
// Named barriers of warps 0 … 8 (0: __syncthreads, 1: block_tile_sync of the consumers): a stage filled
// (producer → consumers) and freed (consumers → producer). The look-back warp's hand-offs are
// mbarriers, by the parity of the block tile: its warp totals scanned (warp 0 → the look-back warp)
// and its carry ready (the look-back warp → the consumers).
inline constexpr int kFilled = 2, kFreed = kFilled + 3;  // + the stage
static_assert(kFreed + Pipe<__half>::kStages <= 16 && Pipe<float>::kStages <= 3, "16 named barriers");

// mbarrier and bulk-copy instructions (PTX, sm_90): a barrier's phase completes when its count of
// arrivals is in and, after arrive.expect_tx(bytes), that many bytes of bulk copies have landed.
// Named barrier `id` of `count` threads: some arrive (and go on), the others wait for them.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__device__ inline void bar_arrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ inline void bar_wait(int id, int count) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory"); }
__device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbar_arrive(unsigned long long* b) {  // release: the writes before it are seen
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(b)) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned long long* b, unsigned parity) {  // until that phase completes
  asm volatile("{\n .reg .pred p;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT;\n}"
               ::"r"(smem(b)), "r"(parity) : "memory");
}
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes, unsigned long long* b) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(b)), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(b)) : "memory");
}
#endif

struct BlockTileTotals {  // steps 1 and 2 of one block tile, for the look-back warp and step 3
  float warp_total[tc::kBlockWarps], warp_carry[tc::kBlockWarps];  // warp_carry: exclusive
  float block_total, block_carry;
  long long tile;  // −1: no more block tiles
};
template <int kStages>
struct alignas(128) PipeSmem {
  __half stage[kStages][tc::kBlockTileElems];  // the ring: block tiles as they lie in memory
  BlockTileTotals totals[2];                   // by the parity of the consumers' iteration
  unsigned long long landed[kStages];          // mbarriers: the stage's bulk copy has landed
  unsigned long long drawn[kStages];           // mbarriers: the stage's ticket is drawn
  unsigned long long scanned[2], carried[2];   // mbarriers: the look-back warp's hand-offs
  long long tile[kStages];                     // the block tile a stage holds (−1: no more)
};

// Alg. 7, step 3, of one warp's round: 8 tiles (fewer in the last block tile), the carry through them.
template <class OutT, bool kInclusive>
__device__ __forceinline__ void scan_round(__half* round, const tc::FragU& u, float carry, OutT* out,
                                           std::int64_t round_first, std::int64_t n, bool pairs, bool lines, int lane) {
  if (n - round_first >= tc::kRoundElems) {
#pragma unroll
    for (int k = 0; k < tc::kRoundTiles; ++k)
      carry = tc::scan_tile_in_registers<OutT, kInclusive>(round + k * tc::kTileElems, u, carry,
                                                           out + round_first + k * tc::kTileElems, tc::kTileElems,
                                                           pairs, lines, lane);
    return;
  }
  for (std::int64_t t0 = round_first; t0 < n; t0 += tc::kTileElems)
    carry = tc::scan_tile_in_registers<OutT, kInclusive>(round + (t0 - round_first), u, carry, out + t0,
                                                         static_cast<int>(min(n - t0, std::int64_t(tc::kTileElems))),
                                                         pairs, lines, lane);
}

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kThreads, Pipe<OutT>::kBlocksPerSm)
    ws_scan_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t n, unsigned long long* state,
                   tc::FixedPoint fx) {
#if __CUDA_ARCH__ >= 900
  constexpr int kStages = Pipe<OutT>::kStages;
  PipeSmem<kStages>& sm = tc::block_smem<PipeSmem<kStages>>();
  const int warp = tc::warp_in_block(), lane = tc::lane_id();
  if (threadIdx.x < 2 * kStages + 4) {  // one arrival each: the producer's, warp 0's, the look-back warp's
    const int k = static_cast<int>(threadIdx.x);
    unsigned long long* b = k < kStages ? &sm.landed[k]
                            : k < 2 * kStages ? &sm.drawn[k - kStages]
                            : k < 2 * kStages + 2 ? &sm.scanned[k - 2 * kStages]
                                                  : &sm.carried[k - 2 * kStages - 2];
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(b)) : "memory");
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
  unsigned long long* status = state + 1;  // state[0]: the ticket counter
  const long long tiles = ceil_div(n, tc::kBlockTileElems);
  if (warp == kProducer) {  // wait for a free stage, draw a ticket, copy that block tile in (fp16
                            // results: the ticket drawn a block tile ahead, its bytes prefetched)
    auto draw = [&] {  // a ticket (fp16 results: its whole 16-byte pieces prefetched into L2)
      const long long ticket = lane ? 0ll : static_cast<long long>(atomicAdd(state, 1ull));
      const long long tile = __shfl_sync(tc::kFullMask, ticket, 0);
      if (!Pipe<OutT>::kPrefetch) return tile;
      const std::int64_t first = tile * tc::kBlockTileElems;
      const std::int64_t len = tile < tiles ? min(n - first, std::int64_t(tc::kBlockTileElems)) : 0;
      const unsigned long long src = reinterpret_cast<unsigned long long>(in + first);
      if (lane == 0 && len >= 8)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src),
                     "r"(static_cast<unsigned>((len & ~std::int64_t(7)) * 2)) : "memory");
      return tile;
    };
    long long i = 0, next = Pipe<OutT>::kPrefetch ? draw() : 0;
    for (;; ++i) {
      const int s = static_cast<int>(i % kStages);
      if (i >= kStages) bar_wait(kFreed + s, kConsumerThreads + kWarp);
      long long tile = next;
      if (!Pipe<OutT>::kPrefetch) tile = draw();
      else if (tile < tiles) next = draw();
      const std::int64_t first = tile * tc::kBlockTileElems;
      const std::int64_t len = tile < tiles ? min(n - first, std::int64_t(tc::kBlockTileElems)) : 0;
      const std::int64_t whole = len & ~std::int64_t(7);  // whole 16-byte pieces go by bulk copy
      for (std::int64_t e = whole + lane; e < round_up(len, tc::kTileElems); e += tc::kWarpSize)
        sm.stage[s][e] = e < len ? in[first + e] : __float2half(0.0f);  // the last tile's rest, zeros
      if (lane == 0) {
        sm.tile[s] = tile < tiles ? tile : -1;
        mbar_arrive(&sm.drawn[s]);
        if (whole > 0) bulk_load(sm.stage[s], in + first, static_cast<unsigned>(whole * 2), &sm.landed[s]);
        else if (len) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(sm.landed + s)) : "memory");
      }
      bar_arrive(kFilled + s, kConsumerThreads + kWarp);
      if (tile >= tiles) break;
    }
    for (long long j = i - kStages + 1; j < i; ++j)  // the stages freed after the last wait
      if (j >= 0) bar_wait(kFreed + static_cast<int>(j % kStages), kConsumerThreads + kWarp);
    return;
  }
  if (warp == kLookBack) {  // each block tile's look-back from its ticket on, then P once its total is in
    for (long long j = 0;; ++j) {
      const int s = static_cast<int>(j % kStages), p = static_cast<int>(j & 1);
      mbar_wait(&sm.drawn[s], static_cast<unsigned>(j / kStages) & 1u);
      const long long tile = sm.tile[s];
      if (tile < 0) return;
      // The carry needs only the predecessors: found while the block tile loads and steps 1 and 2 run.
      const long long carry = tile > 0 ? tc::look_back(status, tile, lane) : 0;
      mbar_wait(&sm.scanned[p], static_cast<unsigned>(j >> 1) & 1u);
      BlockTileTotals& t = sm.totals[p];
      if (lane == 0) {
        if (tile > 0) tc::publish(status[tile], carry + fx.to_fixed(t.block_total), tc::kStateP);
        t.block_carry = fx.to_float(carry);
        mbar_arrive(&sm.carried[p]);
      }
    }
  }
  const tc::FragU u(lane);
  const bool pairs = reinterpret_cast<std::uintptr_t>(out) % (2 * sizeof(OutT)) == 0;
  const bool lines = reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  const int w_first = warp * tc::kRoundElems;  // the warp's round in a block tile
  for (long long i = 0;; ++i) {
    const int s = static_cast<int>(i % kStages), p = static_cast<int>(i & 1);
    BlockTileTotals& t = sm.totals[p];
    bar_wait(kFilled + s, kConsumerThreads + kWarp);
    const long long tile = sm.tile[s];
    if (tile >= 0) {  // steps 1 and 2 of block tile i
      mbar_wait(&sm.landed[s], static_cast<unsigned>(i / kStages) & 1u);
      const std::int64_t round_first = tile * tc::kBlockTileElems + w_first;
      const int round_tiles = round_first >= n ? 0
                                               : static_cast<int>(min(ceil_div(n - round_first, std::int64_t(tc::kTileElems)),
                                                                      std::int64_t(tc::kRoundTiles)));
      const float total = tc::tiles_total(sm.stage[s] + w_first, round_tiles, lane);  // step 1
      if (lane == 0) t.warp_total[warp] = total;
    }
    tc::block_tile_sync();  // every consumer is done with block tile i − 2's totals
    if (warp == 0) {  // step 2 and A (P for block tile 0), then the look-back warp takes over
      if (tile >= 0) {  // step 2: the warp totals' exclusive scan (8 values: shuffles), A
        const float own = lane < tc::kBlockWarps ? t.warp_total[lane] : 0.0f;
        float inc = own;
#pragma unroll
        for (int d = 1; d < tc::kBlockWarps; d *= 2) {
          const float o = __shfl_up_sync(tc::kFullMask, inc, d);
          if (lane >= d) inc = o + inc;
        }
        const float ex = __shfl_up_sync(tc::kFullMask, inc, 1);
        if (lane < tc::kBlockWarps) t.warp_carry[lane] = lane == 0 ? 0.0f : ex;
        const float block = __shfl_sync(tc::kFullMask, inc, tc::kBlockWarps - 1);
        if (lane == 0) {
          tc::publish(status[tile], fx.to_fixed(block), tile == 0 ? tc::kStateP : tc::kStateA);
          t.block_total = block;
        }
      }
      __syncwarp();  // step 2's warp carries are written
      if (lane == 0) {
        t.tile = tile;
        if (tile >= 0) mbar_arrive(&sm.scanned[p]);
      }
    }
    if (i > 0) {  // step 3 of block tile i − 1, once its carry is in
      const int sp = static_cast<int>((i - 1) % kStages);
      const BlockTileTotals& tp = sm.totals[p ^ 1];
      mbar_wait(&sm.carried[p ^ 1], static_cast<unsigned>((i - 1) >> 1) & 1u);
      scan_round<OutT, kInclusive>(sm.stage[sp] + w_first, u, tp.block_carry + tp.warp_carry[warp], out,
                                   tp.tile * tc::kBlockTileElems + w_first, n, pairs, lines, lane);
      if constexpr (sizeof(OutT) == 2)  // its fp16 results went through the stage: before the next bulk copy
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      bar_arrive(kFreed + sp, kConsumerThreads + kWarp);
    }
    if (tile < 0) return;
  }
#endif
}

}  // namespace

const void* warp_specialised_scan_kernel() {
  return reinterpret_cast<const void*>(ws_scan_kernel<float, true>);
}
template <class OutT>
cudaError_t launch_grid_scan_warp_specialised(const __half* in, OutT* out, std::int64_t n, bool inclusive,
                                              cudaStream_t stream) {
  using Smem = PipeSmem<Pipe<OutT>::kStages>;
  auto* kernel = inclusive ? ws_scan_kernel<OutT, true> : ws_scan_kernel<OutT, false>;
  if (cudaError_t e = tc::allow_block_smem<Smem>(kernel); e != cudaSuccess) return e;
  const std::int64_t tiles = ceil_div(n, tc::kBlockTileElems);
  tc::TempBuffer<unsigned long long> state;
  if (cudaError_t e = tc::lookback_state(state, tiles, stream); e != cudaSuccess) return e;
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(kernel), kThreads, tiles, sizeof(Smem));
  kernel<<<static_cast<unsigned>(grid), kThreads, sizeof(Smem), stream>>>(in, out, n, state.get(),
                                                                              tc::fixed_point_for(n));
  return cudaGetLastError();
}
template cudaError_t launch_grid_scan_warp_specialised(const __half*, __half*, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_grid_scan_warp_specialised(const __half*, float*, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::device
