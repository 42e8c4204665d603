// Lesson 1b — Dakkak et al. Alg. 7, block-level scan on tensor cores: each warp stages a round
// of 8 tiles and computes its total (P·A); after a barrier one warp scans the warp totals (one
// MMA row, X·U' with the hi/lo split); after a second barrier every warp scans its tiles (A·U,
// the row offsets by shuffles) and adds its carry (block_scan.cuh). One block per segment,
// walking the segment's block tiles with a running carry (into t+1: carry into t + total of t).
#include "common/tensor_core/block_scan.cuh"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::device {
namespace {

template <class OutT, tc::ScanOutput kOut>
__global__ void __launch_bounds__(tc::kBlockThreads, 4)
    block_scan_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t num_segments,
                      std::int64_t segment_size) {
  tc::BlockSmem& sm = tc::block_smem();
  tc::write_block_constants(sm);
  __syncthreads();
  const tc::Segments whole{segment_size};  // inside one segment: no start but its first element
  for (std::int64_t segment = blockIdx.x; segment < num_segments; segment += gridDim.x) {
    const __half* x = in + segment * segment_size;
    OutT* y = out + segment * segment_size;
    const bool aligned = tc::aligned16(x);
    float running = 0.0f;  // warp 0's lane 0 keeps the segment's running sum
    for (std::int64_t t0 = 0; t0 < segment_size; t0 += tc::kBlockTileElems) {
      {
        tc::Piece piece[tc::kRoundTiles];
        tc::load_block_tile(x, segment_size, t0, aligned, piece);  // every warp: its round
        tc::stage_block_tile(sm, piece);
      }
      tc::scan_staged_block_tile<OutT, kOut, false>(
          sm, y, t0, segment_size, whole,
          [&](tc::Flagged block_total, int) {  // the carry into the block tile: the running sum
            const float carry = running;
            running = running + block_total.v;
            return carry;
          },
          [] {});
    }
  }
}

template <class OutT, tc::ScanOutput kOut>
cudaError_t launch(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                   cudaStream_t stream) {
  auto* kernel = block_scan_kernel<OutT, kOut>;
  if (cudaError_t e = tc::allow_block_smem(kernel); e != cudaSuccess) return e;
  const int grid = tc::resident_grid_size(reinterpret_cast<const void*>(kernel), tc::kBlockThreads, num_segments,
                                          tc::kBlockSmemBytes) * 8;
  const std::int64_t blocks = num_segments < grid ? num_segments : grid;
  kernel<<<static_cast<unsigned>(blocks), tc::kBlockThreads, tc::kBlockSmemBytes, stream>>>(in, out, num_segments,
                                                                                            segment_size);
  return cudaGetLastError();
}

}  // namespace

template <class OutT>
cudaError_t launch_block_scan(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size,
                              bool inclusive, cudaStream_t stream) {
  return inclusive ? launch<OutT, tc::ScanOutput::inclusive>(in, out, num_segments, segment_size, stream)
                   : launch<OutT, tc::ScanOutput::exclusive>(in, out, num_segments, segment_size, stream);
}
template cudaError_t launch_block_scan<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_block_scan<float>(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::device
