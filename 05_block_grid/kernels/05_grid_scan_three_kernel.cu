// Lesson 3a — a grid-level scan in three kernels, reduce then scan: (1) the total of every block
// tile (Alg. 4, 01_block_reduce.cu); (2) one block scans the totals (exclusive, fp32, a fixed
// order); (3) every block rescans its tile (Alg. 7) with the scanned total as its carry. Dakkak
// et al.'s grid level is scan then propagate instead (scan every tile and write it, scan the
// tile totals, then add each tile's carry to its written outputs): the same three launches, but
// it writes the output twice where this one reads the input twice. Either way about 3n of
// traffic against a copy's 2n, the price of needing no inter-block communication. (The paper
// called CUB for the middle step and failed above 2^21 elements; this one takes any n, 2^31
// and more.)
#include "05_block_grid/kernels/launchers.hpp"
#include "common/tensor_core/block_scan.cuh"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::device {
namespace {

// Step 2: exclusive scan of `count` fp32 totals in place, by one block of kBlockThreads threads,
// 256 at a time (a shuffle scan per warp, the warp sums by warp 0, a running carry).
__global__ void __launch_bounds__(tc::kBlockThreads) scan_totals_kernel(float* totals, std::int64_t count) {
  __shared__ float warp_sums[tc::kBlockWarps];
  __shared__ float running;
  const int lane = tc::lane_id(), warp = tc::warp_in_block();
  // BEGIN EXERCISE 05.1 Grid-level scan in three kernels (part 1 of 2: step 2, scan the block totals)
  // HINT: One block walks the totals 256 at a time: a shuffle scan (__shfl_up_sync) in every
  // HINT: warp, warp 0 scans the 8 warp sums in warp_sums, each thread then has its inclusive
  // HINT: prefix; write the exclusive one (inclusive − own value) plus `running`, the sum of
  // HINT: all earlier rounds. Barriers between the phases, and before `running` grows.
  // SIZE: 30 to 35 lines
  if (threadIdx.x == 0) running = 0.0f;
  __syncthreads();
  for (std::int64_t base = 0; base < count; base += tc::kBlockThreads) {
    const std::int64_t i = base + threadIdx.x;
    const float x = i < count ? totals[i] : 0.0f;
    float inc = x;
#pragma unroll
    for (int d = 1; d < tc::kWarpSize; d *= 2) {
      const float o = __shfl_up_sync(tc::kFullMask, inc, d);
      if (lane >= d) inc = o + inc;
    }
    if (lane == tc::kWarpSize - 1) warp_sums[warp] = inc;
    __syncthreads();
    if (warp == 0) {
      float w = lane < tc::kBlockWarps ? warp_sums[lane] : 0.0f;
#pragma unroll
      for (int d = 1; d < tc::kBlockWarps; d *= 2) {
        const float o = __shfl_up_sync(tc::kFullMask, w, d);
        if (lane >= d) w = o + w;
      }
      if (lane < tc::kBlockWarps) warp_sums[lane] = w;  // inclusive over the warps
    }
    __syncthreads();
    const float before = running + (warp > 0 ? warp_sums[warp - 1] : 0.0f);
    if (i < count) totals[i] = before + (inc - x);
    __syncthreads();
    if (threadIdx.x == 0) running = running + warp_sums[tc::kBlockWarps - 1];
    __syncthreads();
  }
  // STUB: (void)lane; (void)warp; (void)warp_sums; (void)running; (void)totals; (void)count;
  // END EXERCISE
}

// Step 3: block tile b rescanned (Alg. 7) with carry-in carries[b].
template <class OutT, tc::ScanOutput kOut>
__global__ void __launch_bounds__(tc::kBlockThreads, 4)
    scan_with_carry_kernel(const __half* __restrict__ in, OutT* __restrict__ out, std::int64_t n,
                           const float* __restrict__ carries) {
  tc::BlockSmem& sm = tc::block_smem();
  tc::write_block_constants(sm);
  __syncthreads();
  const std::int64_t tile = blockIdx.x;
  {
    tc::Piece piece[tc::kRoundTiles];
    tc::load_block_tile(in, n, tile * tc::kBlockTileElems, tc::aligned16(in), piece);
    tc::stage_block_tile(sm, piece);
  }
  tc::scan_staged_block_tile<OutT, kOut, false>(sm, out, tile * tc::kBlockTileElems, n, tc::Segments{n},
                                                [&](tc::Flagged, int) { return carries[tile]; }, [] {});
}

template <class OutT, tc::ScanOutput kOut>
cudaError_t launch(const __half* in, OutT* out, std::int64_t n, cudaStream_t stream) {
  auto* kernel = scan_with_carry_kernel<OutT, kOut>;
  if (cudaError_t e = tc::allow_block_smem(kernel); e != cudaSuccess) return e;
  const std::int64_t tiles = ceil_div(n, tc::kBlockTileElems);
  // BEGIN EXERCISE 05.1 Grid-level scan in three kernels (part 2 of 2: the three launches)
  // HINT: A temporary buffer of one fp32 total per block tile (tc::TempBuffer, launch.hpp);
  // HINT: (1) launch_reduce_chunks writes the tile totals (03_grid_reduce_two_pass.cu); (2) one block
  // HINT: of scan_totals_kernel scans them; (3) one block per tile rescans its tile with its
  // HINT: carry. Check every step's error; all three on `stream`, nothing synchronises.
  // SIZE: 8 to 10 lines
  tc::TempBuffer<float> totals;
  if (cudaError_t e = totals.allocate(tiles, stream); e != cudaSuccess) return e;
  if (cudaError_t e = launch_reduce_chunks(in, totals.get(), 1, n, tiles, tc::kBlockTileElems, stream);
      e != cudaSuccess)
    return e;  // (1)
  scan_totals_kernel<<<1, tc::kBlockThreads, 0, stream>>>(totals.get(), tiles);  // (2)
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  kernel<<<static_cast<unsigned>(tiles), tc::kBlockThreads, tc::kBlockSmemBytes, stream>>>(in, out, n,
                                                                                          totals.get());  // (3)
  return cudaGetLastError();
  // STUB: (void)in; (void)out; (void)tiles; (void)stream;
  // STUB: return cudaSuccess;
  // END EXERCISE
}

}  // namespace

template <class OutT>
cudaError_t launch_grid_scan_three_kernel(const __half* in, OutT* out, std::int64_t n, bool inclusive,
                                          cudaStream_t stream) {
  return inclusive ? launch<OutT, tc::ScanOutput::inclusive>(in, out, n, stream)
                   : launch<OutT, tc::ScanOutput::exclusive>(in, out, n, stream);
}
template cudaError_t launch_grid_scan_three_kernel<__half>(const __half*, __half*, std::int64_t, bool, cudaStream_t);
template cudaError_t launch_grid_scan_three_kernel<float>(const __half*, float*, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::detail::device
