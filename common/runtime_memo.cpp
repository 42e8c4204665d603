#include "common/runtime_memo.hpp"

#include <cuda_runtime.h>

#include <mutex>
#include <vector>

namespace tcu {
namespace {

struct Kept {
  const void* kernel;
  int device, a;
  std::size_t b;
  int value;
};
std::mutex kept_mutex;
std::vector<Kept> kept;

}  // namespace

int remember_per_device(const void* kernel, int a, std::size_t b, MemoQuestion compute) {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return compute(kernel, a, b);
  }
  {
    std::lock_guard<std::mutex> lock(kept_mutex);
    for (const Kept& k : kept)
      if (k.kernel == kernel && k.device == device && k.a == a && k.b == b) return k.value;
  }
  const int value = compute(kernel, a, b);
  if (value >= 0) {
    std::lock_guard<std::mutex> lock(kept_mutex);
    kept.push_back(Kept{kernel, device, a, b, value});
  }
  return value;
}

}  // namespace tcu
