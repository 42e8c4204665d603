// Lesson 3c — lesson 3b with a load warp (Hopper): warp specialisation. In 3b a block loads its next
// block tile only after its look-back. Here a ninth warp, the producer, streams block tiles into a
// ring of kStages shared-memory stages by bulk copies (cp.async.bulk, completing the stage's mbarrier)
// while the eight consumer warps run Alg. 7 and warp 0 looks back: no load waits for a look-back.
// An input off a 16-byte boundary, or a GPU before sm_90, runs lesson 3b (the dispatch).
#include "common/tensor_core/block_scan.cuh"
#include "common/tensor_core/lookback.cuh"

namespace tcu::detail::device {
namespace {

inline constexpr int kProducer = tc::kBlockWarps, kThreads = (kProducer + 1) * tc::kWarpSize;  // warp 8 loads
// mbarrier and bulk-copy instructions (PTX, sm_90): a barrier's phase completes when its count of
// arrivals is in and, after arrive.expect_tx(bytes), that many bytes of bulk copies have landed.
// Named barrier `id` of all kThreads: the producer arrives and the consumers wait, or the reverse.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__device__ inline void bar_arrive(int id) { asm volatile("bar.arrive %0, %1;" ::"r"(id), "n"(kThreads) : "memory"); }
__device__ inline void bar_wait(int id) { asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(kThreads) : "memory"); }
__device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
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

// One stage, four blocks per SM: the consumers' Alg. 7 is latency-bound, so consumer warps per SM count
// most (two stages leave room for two blocks, 16 consumer warps: slower).
inline constexpr int kStages = 1, kBlocksPerSm = 4;
inline constexpr int kFilled = 2, kFreed = kFilled + kStages;  // named barriers kFilled + s, kFreed + s
static_assert(kFreed + kStages <= 16, "a block has 16 named barriers (0: __syncthreads, 1: block_tile_sync)");
struct alignas(128) PipeSmem {
  __half stage[kStages][tc::kBlockTileElems];  // the ring: block tiles as they lie in memory
  tc::BlockSmemOf<1> block;                    // Alg. 7's scratch and constants
  unsigned long long landed[kStages];          // mbarriers: the stage's bulk copy has landed
  long long tile[kStages];                     // the block tile a stage holds (−1: no more)
};

template <class OutT, tc::ScanOutput kOut>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    ws_scan_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t n, unsigned long long* state,
                   tc::FixedPoint fx) {
#if __CUDA_ARCH__ >= 900
  PipeSmem& sm = tc::block_smem<PipeSmem>();
  const int warp = tc::warp_in_block(), lane = tc::lane_id();  // warps 0 … 7 consume, warp 8 produces
  tc::write_block_constants(sm.block);
  if (threadIdx.x < kStages)  // one arrival: the producer's
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&sm.landed[threadIdx.x])) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
  unsigned long long* status = state + 1;  // state[0]: the ticket counter
  const long long tiles = ceil_div(n, tc::kBlockTileElems);
  if (warp == kProducer) {  // the producer: wait for a free stage, draw a ticket, copy that block tile in
    for (long long i = 0;; ++i) {
      const int s = static_cast<int>(i % kStages);
      if (i >= kStages) bar_wait(kFreed + s);
      const long long ticket = lane ? 0ll : static_cast<long long>(atomicAdd(state, 1ull));
      const long long tile = __shfl_sync(tc::kFullMask, ticket, 0);
      const std::int64_t first = tile * tc::kBlockTileElems;
      const std::int64_t len = tile < tiles ? min(n - first, std::int64_t(tc::kBlockTileElems)) : 0;
      const std::int64_t whole = len & ~std::int64_t(7);  // whole 16-byte pieces go by bulk copy
      for (std::int64_t e = whole + lane; e < round_up(len, tc::kTileElems); e += tc::kWarpSize)
        sm.stage[s][e] = e < len ? in[first + e] : __float2half(0.0f);  // the last tile's rest, zeros
      if (lane == 0) {
        sm.tile[s] = tile < tiles ? tile : -1;
        if (whole > 0) bulk_load(sm.stage[s], in + first, static_cast<unsigned>(whole * 2), &sm.landed[s]);
        else if (len) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(sm.landed + s)) : "memory");
      }
      bar_arrive(kFilled + s);
      if (tile >= tiles) return;
    }
  }
  for (long long i = 0;; ++i) {  // a consumer warp: Alg. 7 on each stage, as in lesson 3b
    const int s = static_cast<int>(i % kStages);
    bar_wait(kFilled + s);
    const long long tile = sm.tile[s];
    if (tile < 0) return;
    mbar_wait(&sm.landed[s], static_cast<unsigned>(i / kStages) & 1u);
    tc::scan_staged_block_tile<OutT, kOut, false>(
        sm.block, out, tile * tc::kBlockTileElems, n, tc::Segments{n},
        [&](tc::Flagged total, int lane) {  // warp 0: A, the look-back, P (lesson 3b)
          const long long own = fx.to_fixed(total.v);
          if (lane == 0) tc::publish(status[tile], own, tile == 0 ? tc::kStateP : tc::kStateA);
          const long long carry = tile > 0 ? tc::look_back(status, tile, lane) : 0;
          if (lane == 0 && tile > 0) tc::publish(status[tile], carry + own, tc::kStateP);
          return fx.to_float(carry);
        },
        [] {}, sm.stage[s] + warp * tc::kRoundElems);
    bar_arrive(kFreed + s);
  }
#endif
}

}  // namespace

const void* warp_specialised_scan_kernel() {
  return reinterpret_cast<const void*>(ws_scan_kernel<float, tc::ScanOutput::inclusive>);
}
template <class OutT>
cudaError_t launch_grid_scan_warp_specialised(const __half* in, OutT* out, std::int64_t n, bool inclusive,
                                              cudaStream_t stream) {
  auto* kernel =
      inclusive ? ws_scan_kernel<OutT, tc::ScanOutput::inclusive> : ws_scan_kernel<OutT, tc::ScanOutput::exclusive>;
  if (cudaError_t e = tc::allow_block_smem<PipeSmem>(kernel); e != cudaSuccess) return e;
  const std::int64_t tiles = ceil_div(n, tc::kBlockTileElems);
  tc::TempBuffer<unsigned long long> state;
  if (cudaError_t e = tc::lookback_state(state, tiles, stream); e != cudaSuccess) return e;
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(kernel), kThreads, tiles, sizeof(PipeSmem));
  kernel<<<static_cast<unsigned>(grid), kThreads, sizeof(PipeSmem), stream>>>(in, out, n, state.get(),
                                                                              tc::fixed_point_for(n));
  return cudaGetLastError();
}
template cudaError_t launch_grid_scan_warp_specialised(const __half*, __half*, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_grid_scan_warp_specialised(const __half*, float*, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::device
