#pragma once
// The baselines the chapter's kernels are measured against, on the same fp16 input with fp32
// results (like with like):
//   cub_segmented_reduce        cub::DeviceSegmentedReduce::Reduce with begin/end offset
//                               iterators, fp16 → fp32, plus<float>
//   cub_fixed_segmented_reduce  cub::DeviceSegmentedReduce::Reduce(…, num_segments, segment_size,
//                               plus<float>, 0.0f): the fixed-size overload, CCCL 3.1 or newer only
//   cub_warp_reduce             a (logical) warp per segment: 16-byte loads, cub::WarpReduce<float, W>
//   cub_block_reduce            a block of 256 per segment: 16-byte loads, cub::BlockReduce<float, 256>
//   shuffle_16b                 our hand-written shuffle kernel: like cub_warp_reduce, with
//                               __shfl_xor_sync instead of CUB
//   cub_device_reduce           cub::DeviceReduce::Reduce, fp16 → fp32, plus<float>: one segment
//                               (the whole array) only
// and whole-array reductions for the accuracy study and the thrust row:
//   cub::DeviceReduce::Sum (fp16 → fp16, fp16 accumulation), cub::DeviceReduce::Reduce
//   (fp16 → fp32, plus<float>), thrust::reduce (fp16 → fp32).
// Which of them exist depends on the CCCL the chapter is built with (one per build: the
// toolkit's, or TCU_CCCL_ROOT); available_baselines() lists those of this build.
// Every function is asynchronous on `stream` except thrust_reduce (Thrust returns the value).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tcu::bench::reduce {

enum class Baseline {
  cub_segmented_reduce,
  cub_fixed_segmented_reduce,  // CCCL >= 3.1
  cub_warp_reduce,
  cub_block_reduce,
  shuffle_16b,
  cub_device_reduce,           // num_segments == 1 only
};
const char* baseline_name(Baseline b);
// The baselines this build has (its CCCL version decides), in table order.
std::vector<Baseline> available_baselines();
bool baseline_available(Baseline b);
// Runs only on one segment (the whole array): cub_device_reduce.
bool baseline_whole_array_only(Baseline b);

// Temporary storage CUB asks for, kept between calls (grown on demand, never shrunk).
class CubTemp {
 public:
  CubTemp() = default;
  ~CubTemp();
  CubTemp(const CubTemp&) = delete;
  CubTemp& operator=(const CubTemp&) = delete;
  void* get(std::size_t bytes);  // throws tcu::CudaError when cudaMalloc fails
 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Segmented sums with a baseline (sizes as in tcu::segmented_reduce_sum; invalid → cudaErrorInvalidValue,
// also for a whole-array baseline asked for num_segments != 1 and for the fixed-size overload
// asked for segment_size > INT_MAX; a baseline this build does not have → cudaErrorNotSupported).
cudaError_t baseline_segmented_reduce_sum(Baseline b, CubTemp& temp, const __half* d_in, float* d_out,
                                          std::int64_t num_segments, std::int64_t segment_size,
                                          cudaStream_t stream = 0);

// Whole arrays.
cudaError_t cub_sum_fp16(CubTemp& temp, const __half* d_in, __half* d_out, std::int64_t n, cudaStream_t stream = 0);
cudaError_t cub_reduce_fp32(CubTemp& temp, const __half* d_in, float* d_out, std::int64_t n,
                            cudaStream_t stream = 0);
float thrust_reduce(const __half* d_in, std::int64_t n, cudaStream_t stream = 0);

}  // namespace tcu::bench::reduce
