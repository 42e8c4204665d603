#include "common/tensor_core/launch.hpp"

#include <algorithm>
#include <atomic>

#include "common/int_math.hpp"
#include "common/kernel_image.cuh"
#include "common/runtime_memo.hpp"
#include "common/tensor_core/dependent_launch.cuh"

namespace tcu::tc {

int sm_count() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> cached[kMaxDevices] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0) return 1;
  if (device < kMaxDevices) {
    if (const int c = cached[device].load(std::memory_order_relaxed); c > 0) return c;
  }
  int sms = 1;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms < 1) sms = 1;
  if (device < kMaxDevices) cached[device].store(sms, std::memory_order_relaxed);
  return sms;
}

int grid_for(std::int64_t work_blocks, int per_sm) {
  const std::int64_t cap = static_cast<std::int64_t>(sm_count()) * std::max(per_sm, 1);
  return static_cast<int>(std::max<std::int64_t>(1, std::min(work_blocks, cap)));
}

namespace {

// The runtime's questions behind the two helpers below (remember_per_device keeps the answers).
int blocks_per_sm(const void* kernel, int threads, std::size_t dynamic_smem) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_smem) != cudaSuccess ||
      blocks < 1) {
    cudaGetLastError();  // not sticky; one block per SM (not remembered)
    return -1;
  }
  return blocks;
}

int set_max_dynamic_smem(const void* kernel, int /*unused*/, std::size_t bytes) {
  const cudaError_t set =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  return set == cudaSuccess ? 0 : -static_cast<int>(set);
}

}  // namespace

int resident_grid_size(const void* kernel, int threads, std::int64_t work_blocks, std::size_t dynamic_smem) {
  const int per_sm = remember_per_device(kernel, threads, dynamic_smem, blocks_per_sm);
  return grid_for(work_blocks, per_sm < 1 ? 1 : per_sm);
}

cudaError_t allow_dynamic_smem(const void* kernel, std::size_t bytes) {
  const int e = remember_per_device(kernel, -1, bytes, set_max_dynamic_smem);
  return e >= 0 ? cudaSuccess : static_cast<cudaError_t>(-e);
}

int segment_grid_size(const void* kernel, int warps_per_block, std::int64_t num_segments, std::int64_t segment_size) {
  constexpr std::int64_t kMinShare = 4096;  // elements: fewer warps than that many per warp
  const std::int64_t want_warps =
      std::min(num_segments, std::max<std::int64_t>(1, num_segments * segment_size / kMinShare));
  return resident_grid_size(kernel, warps_per_block * 32, ceil_div(want_warps, warps_per_block));
}

bool runs_sm90_code(const void* kernel) { return require_kernel_image(kernel, 90) == cudaSuccess; }

}  // namespace tcu::tc
