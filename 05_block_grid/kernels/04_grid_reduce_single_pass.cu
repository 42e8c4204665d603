// Lesson 2b — grid-level reduction in ONE launch: a resident grid, block b reduces chunk b of
// the array with Alg. 4 and writes its partial; then (release: a fence, then a ticket from an
// atomic counter) the block that draws the last ticket knows every partial is written, reads
// them (acquire: a fence after the ticket) and sums them in block order. The order of that final
// sum never depends on which block finished last, so the result is the same bits every run.
#include "common/tensor_core/block_reduce.cuh"
#include "common/tensor_core/launch.hpp"

namespace tcu::detail::device {
namespace {

__global__ void __launch_bounds__(tc::kBlockThreads, 4)
    reduce_single_pass_kernel(const __half* __restrict__ in, float* __restrict__ out, std::int64_t n,
                              std::int64_t chunk_elems, float* partials, unsigned* finished) {
  tc::BlockSmem& sm = tc::block_smem();
  tc::write_block_constants(sm);
  __syncthreads();
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * chunk_elems;
  const std::int64_t len = n - first < chunk_elems ? n - first : chunk_elems;
  const float sum = tc::block_reduce_range(sm, in + first, len > 0 ? len : 0);  // Alg. 4
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    __threadfence();  // the partial is visible before the ticket is
    last = atomicAdd(finished, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();  // every other block's partial is visible to this one
  // The last block: thread i adds partials i, i + 256, … in order, then a fixed tree.
  float s = 0.0f;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) s += __ldcg(partials + b);
#pragma unroll
  for (int d = tc::kWarpSize / 2; d > 0; d /= 2) s += __shfl_xor_sync(tc::kFullMask, s, d);
  const int lane = tc::lane_id(), warp = tc::warp_in_block();
  if (lane == 0) sm.warp_total[warp] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int w = 0; w < tc::kBlockWarps; ++w) t += sm.warp_total[w];
    *out = t;
  }
}

}  // namespace

int resident_reduce_blocks() {  // asked of the runtime once per device (launch.hpp)
  tc::allow_block_smem(reduce_single_pass_kernel);
  return tc::resident_grid_size(reinterpret_cast<const void*>(reduce_single_pass_kernel), tc::kBlockThreads,
                                std::int64_t(1) << 40, tc::kBlockSmemBytes);
}

cudaError_t launch_grid_reduce_single_pass(const __half* in, float* out, std::int64_t n, cudaStream_t stream) {
  if (cudaError_t e = tc::allow_block_smem(reduce_single_pass_kernel); e != cudaSuccess) return e;
  const std::int64_t chunk_elems = round_up(ceil_div(n, resident_reduce_blocks()), tc::kBlockTileElems);
  const std::int64_t blocks = ceil_div(n, chunk_elems);
  tc::TempBuffer<float> scratch;  // the partials, then the counter
  if (cudaError_t e = scratch.allocate(blocks + 1, stream); e != cudaSuccess) return e;
  unsigned* finished = reinterpret_cast<unsigned*>(scratch.get() + blocks);
  if (cudaError_t e = cudaMemsetAsync(finished, 0, sizeof(unsigned), stream); e != cudaSuccess) return e;
  reduce_single_pass_kernel<<<static_cast<unsigned>(blocks), tc::kBlockThreads, tc::kBlockSmemBytes, stream>>>(
      in, out, n, chunk_elems, scratch.get(), finished);
  return cudaGetLastError();
}

}  // namespace tcu::detail::device
