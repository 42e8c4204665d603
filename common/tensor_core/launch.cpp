#include "common/tensor_core/launch.hpp"

#include <algorithm>
#include <atomic>

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

int resident_grid_size(const void* kernel, int threads, std::int64_t work_blocks, std::size_t dynamic_smem) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_smem) != cudaSuccess ||
      per_sm < 1) {
    cudaGetLastError();  // not sticky; fall back to one block per SM
    per_sm = 1;
  }
  return grid_for(work_blocks, per_sm);
}

int segment_grid_size(const void* kernel, int warps_per_block, std::int64_t num_segments, std::int64_t segment_size) {
  constexpr std::int64_t kMinShare = 4096;  // elements: fewer warps than that many per warp
  const std::int64_t want_warps =
      std::min(num_segments, std::max<std::int64_t>(1, num_segments * segment_size / kMinShare));
  return resident_grid_size(kernel, warps_per_block * 32, (want_warps + warps_per_block - 1) / warps_per_block);
}

}  // namespace tcu::tc
