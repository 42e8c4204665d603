// Baselines: hand-tuned segmented scans built on cub::WarpScan and cub::BlockScan (Dakkak's
// Fig. 11 compares warp- and block-level scans). A warp (or block) owns a run of whole
// segments and walks it in chunks of consecutive elements per thread (kItems: 16 for fp16
// outputs, 8 for fp32; 16-byte loads and stores where aligned), carrying the running
// (segment, sum) pair between chunks. The scan operator on (segment, sum) pairs restarts at a
// segment change; it is associative because segment ids never decrease along the array.
// Segment ids are counted from the group's first segment (32-bit: a (key, sum) pair is two
// words to shuffle, not four). For fp16 outputs the per-element work (the scan of the pairs)
// bounds these kernels, not the memory (4 bytes moved per element against 6 for fp32): 16
// elements per thread halve it; for fp32 outputs 16 results per thread cost more than they save.
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cstdint>

#include "04_tcu_scan/bench/baselines.cuh"
#include "common/check.cuh"
#include "common/int_math.hpp"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/staging.cuh"

namespace tcu::bench::scan {
namespace {

// Consecutive elements per thread, per output type, chosen by the chapter's sweeps (segments
// 16 … 2^15): fp16 outputs 16 (with 8, the per-element scan of the pairs bounds them), fp32
// outputs 8 (16 fp32 results per thread cost registers and occupancy).
template <class OutT>
inline constexpr int kItems = sizeof(OutT) == 2 ? 16 : 8;
constexpr int kBlockThreads = 256;

struct KeySum {
  int key;  // segment id - the group's first segment id
  float sum;
};
struct SegmentedPlus {
  __device__ KeySum operator()(const KeySum& a, const KeySum& b) const {
    return {b.key, b.key == a.key ? a.sum + b.sum : b.sum};
  }
};

// Scans the chunk of kItems elements [i0, i0 + kItems) ∩ [i0, end) of one thread, given the
// exclusive (key, sum) prefix of everything before it, and writes it out.
template <class OutT, bool kInclusive>
__device__ void scan_thread_items(const float (&x)[kItems<OutT>], std::int64_t i0, std::int64_t end, int key0,
                                  std::int64_t pos0, std::int64_t segment_size, KeySum prefix, OutT* out) {
  float run = prefix.key == key0 ? prefix.sum : 0.0f;
  std::int64_t pos = pos0;
  float y[kItems<OutT>];
#pragma unroll
  for (int j = 0; j < kItems<OutT>; ++j) {
    if (pos == segment_size) {
      pos = 0;
      run = 0.0f;
    }
    const float before = run;
    run += x[j];
    y[j] = kInclusive ? run : before;
    ++pos;
  }
  OutT* dst = out + i0;
  if (i0 + kItems<OutT> <= end && reinterpret_cast<std::uintptr_t>(dst) % 16 == 0) {
    // 16-byte stores of values packed in registers: 8 halves or 4 floats each.
    if constexpr (sizeof(OutT) == 2) {
#pragma unroll
      for (int v = 0; v < kItems<OutT> / 8; ++v) {
        uint4 w;
        unsigned* word = reinterpret_cast<unsigned*>(&w);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const __half2 h = __floats2half2_rn(y[v * 8 + 2 * j], y[v * 8 + 2 * j + 1]);
          word[j] = *reinterpret_cast<const unsigned*>(&h);
        }
        __stcs(reinterpret_cast<uint4*>(dst) + v, w);  // streaming, like the tensor-core kernels' stores
      }
    } else {
#pragma unroll
      for (int v = 0; v < kItems<OutT> / 4; ++v)
        __stcs(reinterpret_cast<float4*>(dst) + v, make_float4(y[4 * v], y[4 * v + 1], y[4 * v + 2], y[4 * v + 3]));
    }
  } else {
    for (int j = 0; j < kItems<OutT> && i0 + j < end; ++j) dst[j] = tc::from_float<OutT>(y[j]);
  }
}

// Loads the thread's items and its (last key, trailing sum) aggregate; keys count from
// first_segment (the group's first).
template <int kN>
__device__ KeySum load_thread_items(const __half* in, std::int64_t i0, std::int64_t end, std::int64_t segment_size,
                                    std::int64_t first_segment, float (&x)[kN], int& key0, std::int64_t& pos0) {
  if (i0 + kN <= end && reinterpret_cast<std::uintptr_t>(in + i0) % 16 == 0) {
    uint4 w[kN / 8];
#pragma unroll
    for (int v = 0; v < kN / 8; ++v) w[v] = __ldcs(reinterpret_cast<const uint4*>(in + i0) + v);
#pragma unroll
    for (int v = 0; v < kN / 8; ++v) {
      const __half2* h = reinterpret_cast<const __half2*>(&w[v]);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float2 f = __half22float2(h[j]);
        x[v * 8 + 2 * j] = f.x;
        x[v * 8 + 2 * j + 1] = f.y;
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < kN; ++j) x[j] = i0 + j < end ? __half2float(in[i0 + j]) : 0.0f;
  }
  const std::int64_t segment = i0 / segment_size;
  key0 = static_cast<int>(segment - first_segment);
  pos0 = i0 - segment * segment_size;
  KeySum agg{key0, 0.0f};
  std::int64_t pos = pos0;
#pragma unroll
  for (int j = 0; j < kN; ++j) {
    if (pos == segment_size) {
      pos = 0;
      agg = {agg.key + 1, 0.0f};
    }
    agg.sum += x[j];
    ++pos;
  }
  return agg;
}

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kBlockThreads) warp_scan_kernel(const __half* in, OutT* out,
                                                                  std::int64_t num_segments, std::int64_t segment_size,
                                                                  std::int64_t segs_per_warp) {
  using WarpScan = cub::WarpScan<KeySum>;
  __shared__ typename WarpScan::TempStorage temp[kBlockThreads / 32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t groups = ceil_div(num_segments, segs_per_warp);
  const std::int64_t total_warps = static_cast<std::int64_t>(gridDim.x) * (kBlockThreads / 32);
  for (std::int64_t g = static_cast<std::int64_t>(blockIdx.x) * (kBlockThreads / 32) + warp; g < groups;
       g += total_warps) {
    const std::int64_t first_segment = g * segs_per_warp;
    const std::int64_t begin = first_segment * segment_size;
    const std::int64_t end = min(num_segments, (g + 1) * segs_per_warp) * segment_size;
    KeySum carry{-1, 0.0f};
    for (std::int64_t base = begin; base < end; base += 32 * kItems<OutT>) {
      const std::int64_t i0 = base + lane * kItems<OutT>;
      float x[kItems<OutT>];
      int key0 = 0;
      std::int64_t pos0 = 0;
      const KeySum agg = load_thread_items(in, min(i0, end), end, segment_size, first_segment, x, key0, pos0);
      KeySum excl, warp_total;
      WarpScan(temp[warp]).ExclusiveScan(agg, excl, SegmentedPlus{}, warp_total);
      const KeySum prefix = lane == 0 ? carry : SegmentedPlus{}(carry, excl);
      if (i0 < end) scan_thread_items<OutT, kInclusive>(x, i0, end, key0, pos0, segment_size, prefix, out);
      carry = SegmentedPlus{}(carry, warp_total);
      __syncwarp();
    }
  }
}

template <class OutT, bool kInclusive>
__global__ void __launch_bounds__(kBlockThreads) block_scan_kernel(const __half* in, OutT* out,
                                                                   std::int64_t num_segments, std::int64_t segment_size,
                                                                   std::int64_t segs_per_block) {
  using BlockScan = cub::BlockScan<KeySum, kBlockThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  const std::int64_t groups = ceil_div(num_segments, segs_per_block);
  for (std::int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
    const std::int64_t first_segment = g * segs_per_block;
    const std::int64_t begin = first_segment * segment_size;
    const std::int64_t end = min(num_segments, (g + 1) * segs_per_block) * segment_size;
    KeySum carry{-1, 0.0f};
    for (std::int64_t base = begin; base < end; base += kBlockThreads * kItems<OutT>) {
      const std::int64_t i0 = base + static_cast<std::int64_t>(threadIdx.x) * kItems<OutT>;
      float x[kItems<OutT>];
      int key0 = 0;
      std::int64_t pos0 = 0;
      const KeySum agg = load_thread_items(in, min(i0, end), end, segment_size, first_segment, x, key0, pos0);
      KeySum excl, block_total;
      BlockScan(temp).ExclusiveScan(agg, excl, SegmentedPlus{}, block_total);
      const KeySum prefix = threadIdx.x == 0 ? carry : SegmentedPlus{}(carry, excl);
      if (i0 < end) scan_thread_items<OutT, kInclusive>(x, i0, end, key0, pos0, segment_size, prefix, out);
      carry = SegmentedPlus{}(carry, block_total);
      __syncthreads();  // temp is reused by the next chunk
    }
  }
}

// Blocks for `units` work units, `units_per_block` to a block: at most 8 blocks per SM.
int grid_for(std::int64_t units, int units_per_block) { return tc::grid_for(ceil_div(units, units_per_block), 8); }

}  // namespace

template <class OutT>
void cub_warp_scan(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size, bool inclusive,
                   cudaStream_t stream) {
  if (num_segments == 0) return;
  // Tuned by the sweep: about 2048 elements of whole segments per warp.
  const std::int64_t segs = segment_size >= 2048 ? 1 : 2048 / segment_size;
  const int grid = grid_for(ceil_div(num_segments, segs), kBlockThreads / 32);
  if (inclusive)
    warp_scan_kernel<OutT, true><<<grid, kBlockThreads, 0, stream>>>(in, out, num_segments, segment_size, segs);
  else
    warp_scan_kernel<OutT, false><<<grid, kBlockThreads, 0, stream>>>(in, out, num_segments, segment_size, segs);
  TCU_CHECK_LAUNCH();
}

template <class OutT>
void cub_block_scan(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size, bool inclusive,
                    cudaStream_t stream) {
  if (num_segments == 0) return;
  // About 8192 elements of whole segments per block.
  const std::int64_t segs = segment_size >= 8192 ? 1 : 8192 / segment_size;
  const int grid = grid_for(ceil_div(num_segments, segs), 1);
  if (inclusive)
    block_scan_kernel<OutT, true><<<grid, kBlockThreads, 0, stream>>>(in, out, num_segments, segment_size, segs);
  else
    block_scan_kernel<OutT, false><<<grid, kBlockThreads, 0, stream>>>(in, out, num_segments, segment_size, segs);
  TCU_CHECK_LAUNCH();
}

template void cub_warp_scan<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template void cub_warp_scan<float>(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);
template void cub_block_scan<__half>(const __half*, __half*, std::int64_t, std::int64_t, bool, cudaStream_t);
template void cub_block_scan<float>(const __half*, float*, std::int64_t, std::int64_t, bool, cudaStream_t);

}  // namespace tcu::bench::scan
