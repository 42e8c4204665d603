#include "06_jetson_unified_memory/memory_budget.hpp"

#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/check.cuh"

namespace tcu::unified_memory {

std::uint64_t gpu_headroom(const MemoryBudget& b) {
  // 256 MiB or 5 % of the free memory, whichever is larger.
  return std::max<std::uint64_t>(std::uint64_t(256) << 20, b.gpu_free / 20);
}

std::uint64_t host_headroom(const MemoryBudget& b) {
  // 512 MiB or 10 % of the available memory.
  return std::max<std::uint64_t>(std::uint64_t(512) << 20, b.host_available / 10);
}

std::string format_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0 || v == static_cast<double>(static_cast<std::uint64_t>(v)))
    std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(v), units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.3g %s", v, units[u]);
  return buf;
}

namespace {
std::uint64_t usable(std::uint64_t have, std::uint64_t headroom) { return have > headroom ? have - headroom : 0; }
}  // namespace

std::optional<std::string> check_fits(const MemoryNeed& need, const MemoryBudget& b, const std::string& what) {
  const std::uint64_t gpu_need = need.device + need.managed;
  const std::uint64_t gpu_ok = usable(b.gpu_free, gpu_headroom(b));
  const std::uint64_t host_ok = usable(b.host_available, host_headroom(b));
  std::ostringstream os;
  if (b.integrated) {
    // One DRAM: cudaMemGetInfo and MemAvailable describe the same memory; the smaller is the limit.
    const std::uint64_t pool = std::min(gpu_ok, host_ok);
    const std::uint64_t total = gpu_need + need.host;
    if (total <= pool) return std::nullopt;
    os << what << " needs " << format_bytes(total) << " of the shared DRAM (GPU buffers "
       << format_bytes(gpu_need) << " + host buffers " << format_bytes(need.host) << "), but only "
       << format_bytes(pool) << " can be used (free " << format_bytes(std::min(b.gpu_free, b.host_available))
       << " minus headroom).";
    return os.str();
  }
  if (gpu_need > gpu_ok) {
    os << what << " needs " << format_bytes(gpu_need) << " of GPU memory"
       << (need.managed ? " (managed memory is never over-subscribed here)" : "") << ", but only "
       << format_bytes(gpu_ok) << " can be used (" << format_bytes(b.gpu_free) << " free of "
       << format_bytes(b.gpu_total) << ", minus " << format_bytes(gpu_headroom(b)) << " headroom).";
    return os.str();
  }
  if (need.host > host_ok) {
    os << what << " needs " << format_bytes(need.host) << " of host memory, but only " << format_bytes(host_ok)
       << " can be used (" << format_bytes(b.host_available) << " available, minus "
       << format_bytes(host_headroom(b)) << " headroom).";
    return os.str();
  }
  return std::nullopt;
}

std::uint64_t host_available_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  std::uint64_t value = 0;
  std::string unit;
  while (f >> key >> value) {
    std::getline(f, unit);
    if (key == "MemAvailable:") return value * 1024;  // kB
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return (pages > 0 && page > 0) ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

MemoryBudget query_memory_budget(bool integrated) {
  MemoryBudget b;
  std::size_t free_b = 0, total_b = 0;
  TCU_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  b.gpu_free = free_b;
  b.gpu_total = total_b;
  b.host_available = host_available_bytes();
  b.integrated = integrated;
  return b;
}

SizePlan plan_sizes(const SizeRequest& r) {
  SizePlan p;
  if (r.n > 0 && r.bytes > 0) {
    p.error = "give either --n or --bytes, not both";
    return p;
  }
  if (r.sweep && (r.n > 0 || r.bytes > 0)) {
    p.error = "--sweep chooses the sizes itself: drop --n/--bytes (use --sweep-max to cap it)";
    return p;
  }
  if (r.bytes > 0 && r.bytes % 2 != 0) {
    p.error = "--bytes must be even: the input is fp16, 2 bytes per element (got " + std::to_string(r.bytes) + ")";
    return p;
  }
  if (r.sweep) {
    if (r.sweep_min < 2 || r.sweep_max < r.sweep_min) {
      p.error = "the sweep needs 2 <= minimum <= maximum bytes";
      return p;
    }
    for (std::int64_t b = r.sweep_min; b <= r.sweep_max; b *= 4) {
      p.elements.push_back(b / 2);
      if (b > r.sweep_max / 4) break;
    }
    if (p.elements.back() != r.sweep_max / 2) p.elements.push_back(r.sweep_max / 2);
    return p;
  }
  if (r.n > 0) {
    p.elements.push_back(r.n);
  } else {
    p.elements.push_back((r.bytes > 0 ? r.bytes : kDefaultBytes) / 2);
  }
  return p;
}

}  // namespace tcu::unified_memory
