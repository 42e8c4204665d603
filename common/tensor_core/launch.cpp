#include "common/tensor_core/launch.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace tcu::tc {
namespace {

// Answers of the runtime that cannot change while the process runs (a kernel's occupancy at a
// shape, a kernel attribute once set), per kernel, shape and device.
struct Remembered {
  const void* kernel;
  int device, threads;
  std::size_t bytes;
  int value;
};
std::mutex remembered_mutex;
std::vector<Remembered> remembered;

// The value remembered for (kernel, threads, bytes) on the current device, or compute() stored
// when it succeeds (>= 0); a failure (< 0) is returned and not kept.
template <class Compute>
int remember(const void* kernel, int threads, std::size_t bytes, Compute&& compute) {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return compute();
  }
  {
    std::lock_guard<std::mutex> lock(remembered_mutex);
    for (const Remembered& r : remembered)
      if (r.kernel == kernel && r.device == device && r.threads == threads && r.bytes == bytes) return r.value;
  }
  const int value = compute();
  if (value >= 0) {
    std::lock_guard<std::mutex> lock(remembered_mutex);
    remembered.push_back(Remembered{kernel, device, threads, bytes, value});
  }
  return value;
}

}  // namespace

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
  const int per_sm = remember(kernel, threads, dynamic_smem, [&] {
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_smem) != cudaSuccess ||
        blocks < 1) {
      cudaGetLastError();  // not sticky; one block per SM (not remembered)
      return -1;
    }
    return blocks;
  });
  return grid_for(work_blocks, per_sm < 1 ? 1 : per_sm);
}

cudaError_t allow_dynamic_smem(const void* kernel, std::size_t bytes) {
  const int e = remember(kernel, -1, bytes, [&] {
    const cudaError_t set =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
    return set == cudaSuccess ? 0 : -static_cast<int>(set);
  });
  return e >= 0 ? cudaSuccess : static_cast<cudaError_t>(-e);
}

int segment_grid_size(const void* kernel, int warps_per_block, std::int64_t num_segments, std::int64_t segment_size) {
  constexpr std::int64_t kMinShare = 4096;  // elements: fewer warps than that many per warp
  const std::int64_t want_warps =
      std::min(num_segments, std::max<std::int64_t>(1, num_segments * segment_size / kMinShare));
  return resident_grid_size(kernel, warps_per_block * 32, (want_warps + warps_per_block - 1) / warps_per_block);
}

}  // namespace tcu::tc
