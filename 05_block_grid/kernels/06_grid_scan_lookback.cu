// Lesson 3b — the single-pass scan with decoupled look-back (Merrill & Garland), Alg. 7 inside
// each block (block_scan.cuh). A resident grid; each block draws tickets (block tile numbers in
// the order blocks start, so a block only waits for running blocks). Warp 0 publishes its block
// tile's total (A), adds its predecessors' values newest first until it meets an inclusive
// prefix (P), and publishes its own P. Reads the input once: about a copy's traffic.
#include "common/tensor_core/block_scan.cuh"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/lookback.cuh"

namespace tcu::detail::device {
namespace {

template <class OutT, tc::ScanOutput kOut>
__global__ void __launch_bounds__(tc::kBlockThreads, 3)
    lookback_scan_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t n,
                         unsigned long long* state, tc::FixedPoint fx, const float* carry_in) {
  tc::BlockSmem& sm = tc::block_smem();
  if (threadIdx.x == 0) sm.ticket = static_cast<long long>(atomicAdd(state, 1ull));  // the first ticket
  tc::write_block_constants(sm);
  __syncthreads();
  unsigned long long* status = state + 1;
  const long long tiles = ceil_div(n, tc::kBlockTileElems);
  const bool aligned = tc::aligned16(in);
  long long tile = sm.ticket;
  tc::Piece piece[tc::kRoundTiles];
  if (tile < tiles) tc::load_block_tile(in, n, tile * tc::kBlockTileElems, aligned, piece);
  while (tile < tiles) {
    tc::stage_block_tile(sm, piece);
    long long next = 0;
    tc::scan_staged_block_tile<OutT, kOut, false>(
        sm, out, tile * tc::kBlockTileElems, n, tc::Segments{n},
        [&](tc::Flagged total, int lane) {  // warp 0, once Alg. 7 has the block tile's total
          const long long own = fx.to_fixed(total.v);
          if (lane == 0) tc::publish(status[tile], own, tile == 0 ? tc::kStateP : tc::kStateA);  // X → A
          long long carry = 0;
          if (tile > 0) {
            carry = tc::look_back(status, tile, lane);  // the predecessors' values back to the newest P
            if (lane == 0) tc::publish(status[tile], carry + own, tc::kStateP);  // A → P
          }
          const float c = carry_in ? fx.to_float(carry) + *carry_in : fx.to_float(carry);
          if (lane == 0) sm.next_ticket = static_cast<long long>(atomicAdd(state, 1ull));  // after the look-back
          return c;
        },
        [&] {  // every thread, before the tiles are scanned and written: the next tile's loads
          next = sm.next_ticket;
          if (next < tiles) tc::load_block_tile(in, n, next * tc::kBlockTileElems, aligned, piece);
        });
    tile = next;
  }
}

template <class OutT, tc::ScanOutput kOut>
cudaError_t launch(const __half* in, OutT* out, std::int64_t n, cudaStream_t stream, const float* carry_in) {
  auto* kernel = lookback_scan_kernel<OutT, kOut>;
  if (cudaError_t e = tc::allow_block_smem(kernel); e != cudaSuccess) return e;
  const std::int64_t tiles = ceil_div(n, tc::kBlockTileElems);
  tc::TempBuffer<unsigned long long> state;
  if (cudaError_t e = tc::lookback_state(state, tiles, stream); e != cudaSuccess) return e;
  const int grid =
      tc::resident_grid_size(reinterpret_cast<const void*>(kernel), tc::kBlockThreads, tiles, tc::kBlockSmemBytes);
  kernel<<<static_cast<unsigned>(grid), tc::kBlockThreads, tc::kBlockSmemBytes, stream>>>(
      in, out, n, state.get(), tc::fixed_point_for(n), carry_in);
  return cudaGetLastError();
}

}  // namespace

template <class OutT>
cudaError_t launch_grid_scan_lookback(const __half* in, OutT* out, std::int64_t n, bool inclusive,
                                      cudaStream_t stream, const float* carry_in) {
  return inclusive ? launch<OutT, tc::ScanOutput::inclusive>(in, out, n, stream, carry_in)
                   : launch<OutT, tc::ScanOutput::exclusive>(in, out, n, stream, carry_in);
}
template cudaError_t launch_grid_scan_lookback(const __half*, __half*, std::int64_t, bool, cudaStream_t, const float*);
template cudaError_t launch_grid_scan_lookback(const __half*, float*, std::int64_t, bool, cudaStream_t, const float*);

}  // namespace tcu::detail::device
