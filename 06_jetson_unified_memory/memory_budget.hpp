#pragma once
// Which sizes to run, and whether they fit. Asking for more managed memory than the GPU has
// free makes the driver evict and re-fault pages for as long as it takes (on a shared GPU,
// everyone's), and pinning more host memory than there is can stall the whole machine — so
// every size is checked against cudaMemGetInfo and the host's available memory first, and a
// size that does not fit is a usage error (exit 2), never an attempt.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tcu::unified_memory {

// Bytes one run of a workflow holds at its peak.
struct MemoryNeed {
  std::uint64_t device = 0;   // cudaMalloc
  std::uint64_t managed = 0;  // cudaMallocManaged: must fit in the GPU's free memory
  std::uint64_t host = 0;     // malloc, cudaMallocHost, cudaHostAlloc
};

struct MemoryBudget {
  std::uint64_t gpu_free = 0;
  std::uint64_t gpu_total = 0;
  std::uint64_t host_available = 0;  // MemAvailable of /proc/meminfo (or sysconf's free pages)
  bool integrated = false;           // one DRAM: GPU and host needs come out of the same pool
};

// Slack kept free on the GPU: the CUDA context, the device-wide sum's temporary storage, other users.
std::uint64_t gpu_headroom(const MemoryBudget& b);
// Slack kept free on the host (the OS, the page cache others need).
std::uint64_t host_headroom(const MemoryBudget& b);

// nullopt when `need` fits in `budget` with the headroom; otherwise a message saying what
// does not fit, by how much, and the largest --bytes that would. `what` names the request.
std::optional<std::string> check_fits(const MemoryNeed& need, const MemoryBudget& budget,
                                      const std::string& what);

// The host's available memory in bytes (Linux: MemAvailable; elsewhere sysconf), 0 if unknown.
std::uint64_t host_available_bytes();
// cudaMemGetInfo on the current device plus the host figure. Throws tcu::CudaError.
MemoryBudget query_memory_budget(bool integrated);

// "512 MiB", "1.5 GiB", "3 B" — for messages and tables.
std::string format_bytes(std::uint64_t bytes);

// The sizes of one invocation, in fp16 elements.
struct SizeRequest {
  std::int64_t n = 0;          // --n (0: not given)
  std::int64_t bytes = 0;      // --bytes (0: not given)
  bool sweep = false;          // --sweep
  std::int64_t sweep_min = 0;  // bytes
  std::int64_t sweep_max = 0;  // bytes
};
inline constexpr std::int64_t kDefaultBytes = std::int64_t(64) << 20;     // 64 MiB = 2^25 halves
inline constexpr std::int64_t kSweepMinBytes = std::int64_t(1) << 20;     // 1 MiB
inline constexpr std::int64_t kSweepMaxBytes = std::int64_t(1) << 30;     // 1 GiB

struct SizePlan {
  std::vector<std::int64_t> elements;  // fp16 elements per size, ascending
  std::string error;                   // non-empty: a usage error (exit 2)
};
// --n and --bytes exclude each other and --sweep; --bytes must be even (fp16 = 2 bytes);
// the sweep goes from sweep_min to sweep_max by factors of 4 (both ends included).
SizePlan plan_sizes(const SizeRequest& r);

}  // namespace tcu::unified_memory
