// Lesson 4 — the segmented single-pass scan: the look-back of 06 with heads. A block tile holding
// a segment start publishes its sum after the start as P at once, so a look-back never goes back
// further than its segment's first block tile, however many blocks the segment spans. Heads also
// reset the row scans (A·U for whole rows, else each lane's 8 elements), the warp carries and the
// block carry. The segmented reduction is the same kernel writing only each segment's last prefix.
#include "common/tensor_core/block_scan.cuh"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/lookback.cuh"

namespace tcu::detail::device {
namespace {

template <class OutT, tc::ScanOutput kOut>
__global__ void __launch_bounds__(tc::kBlockThreads, 3)
    segmented_lookback_scan_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t n,
                                   std::int64_t segment_size, unsigned long long* state, tc::FixedPoint fx) {
  tc::BlockSmem& sm = tc::block_smem();
  if (threadIdx.x == 0) sm.ticket = static_cast<long long>(atomicAdd(state, 1ull));  // the first ticket
  tc::write_block_constants(sm);
  __syncthreads();
  unsigned long long* status = state + 1;
  const long long tiles = ceil_div(n, tc::kBlockTileElems);
  const tc::Segments seg{segment_size};
  const bool aligned = tc::aligned16(in);
  long long tile = sm.ticket;
  tc::Piece piece[tc::kRoundTiles];
  if (tile < tiles) tc::load_block_tile(in, n, tile * tc::kBlockTileElems, aligned, piece);
  while (tile < tiles) {
    tc::stage_block_tile(sm, piece);
    const std::int64_t tile_first = tile * tc::kBlockTileElems;
    const bool needs_carry = !seg.starts_at(tile_first);
    long long next = 0;
    tc::scan_staged_block_tile<OutT, kOut, true>(
        sm, out, tile_first, n, seg,
        [&](tc::Flagged total, int lane) {  // warp 0, once Alg. 7 has the block tile's total
          const long long own = fx.to_fixed(total.v);
          const bool own_is_prefix = tile == 0 || total.head;  // a head: its sum after the start is a P
          if (lane == 0) tc::publish(status[tile], own, own_is_prefix ? tc::kStateP : tc::kStateA);  // X → A or P
          long long carry = 0;
          if (needs_carry && tile > 0) {
            carry = tc::look_back(status, tile, lane);  // the predecessors' values back to the newest P
            if (lane == 0 && !own_is_prefix) tc::publish(status[tile], carry + own, tc::kStateP);  // A → P
          }
          if (lane == 0) sm.next_ticket = static_cast<long long>(atomicAdd(state, 1ull));  // after the look-back
          return fx.to_float(carry);
        },
        [&] {  // every thread, before the tiles are scanned and written: the next tile's loads
          next = sm.next_ticket;
          if (next < tiles) tc::load_block_tile(in, n, next * tc::kBlockTileElems, aligned, piece);
        });
    tile = next;
  }
}

// Fixed point for prefixes of one segment (the look-back never adds across a segment start).
template <class OutT, tc::ScanOutput kOut>
cudaError_t launch(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                   cudaStream_t stream) {
  auto* kernel = segmented_lookback_scan_kernel<OutT, kOut>;
  if (cudaError_t e = tc::allow_block_smem(kernel); e != cudaSuccess) return e;
  const std::int64_t n = num_segments * segment_size, tiles = ceil_div(n, tc::kBlockTileElems);
  tc::TempBuffer<unsigned long long> state;
  if (cudaError_t e = tc::lookback_state(state, tiles, stream); e != cudaSuccess) return e;
  const int grid =
      tc::resident_grid_size(reinterpret_cast<const void*>(kernel), tc::kBlockThreads, tiles, tc::kBlockSmemBytes);
  kernel<<<static_cast<unsigned>(grid), tc::kBlockThreads, tc::kBlockSmemBytes, stream>>>(
      in, out, n, segment_size, state.get(), tc::fixed_point_for(segment_size));
  return cudaGetLastError();
}

}  // namespace

template <class OutT>
cudaError_t launch_segmented_scan_lookback(const __half* in, OutT* out, std::int64_t num_segments,
                                           std::int64_t segment_size, bool inclusive, cudaStream_t stream) {
  return inclusive ? launch<OutT, tc::ScanOutput::inclusive>(in, out, num_segments, segment_size, stream)
                   : launch<OutT, tc::ScanOutput::exclusive>(in, out, num_segments, segment_size, stream);
}
template cudaError_t launch_segmented_scan_lookback<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool,
                                                            cudaStream_t);
template cudaError_t launch_segmented_scan_lookback<float>(const __half*, float*, std::int64_t, std::int64_t, bool,
                                                           cudaStream_t);

cudaError_t launch_segmented_reduce_lookback(const __half* in, float* out, std::int64_t num_segments,
                                             std::int64_t segment_size, cudaStream_t stream) {
  return launch<float, tc::ScanOutput::segment_sums>(in, out, num_segments, segment_size, stream);
}

}  // namespace tcu::detail::device
