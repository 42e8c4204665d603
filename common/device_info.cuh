#pragma once
// What the running GPU is, and whether it can run the tutorial (tensor cores: cc >= 7.0).
#include <cstdint>
#include <string>

namespace tcu {

struct DeviceInfo {
  int device = 0;
  std::string name;
  int sm_count = 0;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_clock_mhz = 0;         // peak SM clock
  int mem_clock_mhz = 0;        // peak memory clock
  int mem_bus_width_bits = 0;
  std::int64_t global_mem_bytes = 0;
  int l2_bytes = 0;
  int shared_mem_per_block_optin = 0;
  bool integrated = false;      // Tegra / Jetson: CPU and GPU share DRAM
  bool concurrent_managed_access = false;
  int runtime_version = 0;      // e.g. 13000 for CUDA 13.0
  int driver_version = 0;       // the CUDA version the driver supports
  int cccl_version = 0;         // CCCL_VERSION, e.g. 3000001 for 3.0.1

  int compute_capability() const { return cc_major * 10 + cc_minor; }
  // Theoretical DRAM bandwidth from clock and bus width (DDR: two transfers per clock).
  double theoretical_bandwidth_gb_per_s() const {
    return 2.0 * mem_clock_mhz * 1e6 * (mem_bus_width_bits / 8.0) / 1e9;
  }
};

// "13.0" from 13000.
std::string format_cuda_version(int v);
// "3.0.1" from 3000001.
std::string format_cccl_version(int v);
// CCCL_VERSION of the CCCL this build was compiled against (e.g. 3000001). One per build:
// TCU_CCCL_ROOT switches every target at once, so the baselines use this one too.
int built_cccl_version();
// CCCL_VERSION's encoding (major·10^6 + minor·10^3 + patch) from THRUST_VERSION's or
// CUB_VERSION's (major·10^5 + minor·10^2 + patch): 200200 → 2002000 for CCCL 2.2.0, whose
// headers have no CCCL_VERSION yet.
constexpr int cccl_version_from_thrust(int thrust_version) {
  return thrust_version / 100000 * 1000000 + thrust_version / 100 % 1000 * 1000 + thrust_version % 100;
}
// One paragraph for the top of every chapter's output.
std::string describe(const DeviceInfo& info);

// Reads the properties of `device`. Throws tcu::CudaError when there is no such device.
DeviceInfo query_device(int device = 0);

// The result of looking for a GPU that can run a chapter.
struct GpuCheck {
  bool ok = false;
  bool bad_ordinal = false;  // GPUs exist, but not the one asked for: a usage error (exit 2)
  std::string message;  // why not, and what is needed, when !ok
  DeviceInfo info;      // filled when a device was found
};

// Looks for a CUDA device with compute capability >= min_major.min_minor, never throws.
GpuCheck check_gpu(int min_major = 7, int min_minor = 0, int device = 0);

// Pure decision used by check_gpu (tested on the host): is `info` good enough?
GpuCheck judge_gpu(const DeviceInfo& info, int min_major, int min_minor);

}  // namespace tcu
