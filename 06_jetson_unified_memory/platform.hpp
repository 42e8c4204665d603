#pragma once
// What kind of GPU this is, as far as memory is concerned, and why that changes the ranking of
// the five ways to get data to it.
#include <string>

namespace tcu::unified_memory {

struct Platform {
  int device = 0;
  std::string name;
  bool integrated = false;                 // cudaDevAttrIntegrated: CPU and GPU share DRAM (Tegra)
  bool managed_memory = false;             // cudaDevAttrManagedMemory: cudaMallocManaged works
  bool concurrent_managed_access = false;  // cudaDevAttrConcurrentManagedAccess: page faulting,
                                           // prefetch and advice work (0 on Jetson, on Windows)
  bool pageable_memory_access = false;     // cudaDevAttrPageableMemoryAccess: the GPU may read
                                           // plain malloc memory (HMM / ATS systems)
  bool can_map_host_memory = false;        // cudaDevAttrCanMapHostMemory: zero-copy works
};

// Reads the attributes of `device`. Throws tcu::CudaError.
Platform query_platform(int device);

// "integrated=0 concurrentManagedAccess=1 ..." — the attributes the chapter looks at.
std::string describe_platform(const Platform& p);

// Several lines: which ranking to expect on this kind of GPU, and why (the lesson's core).
std::string explain_ranking(const Platform& p);

}  // namespace tcu::unified_memory
