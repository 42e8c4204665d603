#include <cuda_runtime.h>
#include <thrust/version.h>  // THRUST_VERSION in every CCCL; CCCL_VERSION as well from CCCL 2.3 on

#include <sstream>

#include "common/check.cuh"
#include "common/device_info.cuh"

namespace tcu {

std::string format_cuda_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string format_cccl_version(int v) {
  return std::to_string(v / 1000000) + "." + std::to_string((v / 1000) % 1000) + "." +
         std::to_string(v % 1000);
}

// CCCL_VERSION appeared in CCCL 2.3 (CUDA 12.4); CUDA 12.2/12.3 (JetPack 6.0) ship CCCL 2.2,
// whose Thrust and CUB carry the same version in their own encoding.
#if defined(CCCL_VERSION)
static_assert(cccl_version_from_thrust(THRUST_VERSION) == CCCL_VERSION,
              "THRUST_VERSION and CCCL_VERSION disagree: the fallback below would misreport");
int built_cccl_version() { return CCCL_VERSION; }
#else
int built_cccl_version() { return cccl_version_from_thrust(THRUST_VERSION); }
#endif

std::string describe(const DeviceInfo& d) {
  std::ostringstream os;
  os << "GPU " << d.device << ": " << d.name << " (sm_" << d.cc_major << d.cc_minor << ", "
     << d.sm_count << " SMs, " << d.sm_clock_mhz << " MHz, "
     << (d.global_mem_bytes >> 20) << " MiB, L2 " << (d.l2_bytes >> 20) << " MiB"
     << (d.integrated ? ", integrated" : "") << ")\n"
     << "CUDA runtime " << format_cuda_version(d.runtime_version) << ", driver supports "
     << format_cuda_version(d.driver_version) << ", CCCL " << format_cccl_version(d.cccl_version);
  return os.str();
}

DeviceInfo query_device(int device) {
  DeviceInfo d;
  d.device = device;
  cudaDeviceProp p{};
  TCU_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  d.name = p.name;
  d.sm_count = p.multiProcessorCount;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.mem_bus_width_bits = p.memoryBusWidth;
  d.global_mem_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
  d.l2_bytes = p.l2CacheSize;
  d.shared_mem_per_block_optin = static_cast<int>(p.sharedMemPerBlockOptin);
  d.integrated = p.integrated != 0;
  d.concurrent_managed_access = p.concurrentManagedAccess != 0;
  // CUDA 13 removed the clock fields from cudaDeviceProp; the attributes remain.
  int khz = 0;
  TCU_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  d.sm_clock_mhz = khz / 1000;
  TCU_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
  d.mem_clock_mhz = khz / 1000;
  TCU_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  TCU_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  d.cccl_version = built_cccl_version();
  return d;
}

GpuCheck judge_gpu(const DeviceInfo& info, int min_major, int min_minor) {
  GpuCheck c;
  c.info = info;
  const bool new_enough =
      info.cc_major > min_major || (info.cc_major == min_major && info.cc_minor >= min_minor);
  if (new_enough) {
    c.ok = true;
    return c;
  }
  c.message = "GPU " + std::to_string(info.device) + " (" + info.name + ") has compute capability " +
              std::to_string(info.cc_major) + "." + std::to_string(info.cc_minor) +
              ", but this program needs " + std::to_string(min_major) + "." +
              std::to_string(min_minor) + " or newer (tensor cores: Volta, Turing, Ampere, Ada, "
              "Hopper, Blackwell or a Jetson Xavier/Orin).";
  return c;
}

GpuCheck check_gpu(int min_major, int min_minor, int device) {
  GpuCheck c;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  // Without any NVIDIA driver the runtime answers cudaErrorInsufficientDriver as well, but then
  // the driver version reads 0: say "no driver", not "too old a driver".
  int driver = 0;
  const bool no_driver = err != cudaSuccess && (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0);
  if (no_driver) {
    c.message = "no NVIDIA GPU or driver found (no CUDA driver is installed): this program needs an NVIDIA GPU "
                "with compute capability " + std::to_string(min_major) + "." + std::to_string(min_minor) +
                " or newer and its driver.";
    cudaGetLastError();
    return c;
  }
  if (err != cudaSuccess) {
    c.message = std::string("no usable CUDA GPU: cudaGetDeviceCount says ") + cudaGetErrorName(err) +
                " (" + cudaGetErrorString(err) + "). This program needs an NVIDIA GPU with "
                "compute capability " + std::to_string(min_major) + "." + std::to_string(min_minor) +
                " or newer and a driver that supports CUDA " +
                format_cuda_version(CUDART_VERSION) + ".";
    cudaGetLastError();  // clear the non-sticky error
    return c;
  }
  if (count == 0) {
    c.message = "no CUDA GPU found: this program needs an NVIDIA GPU with compute capability " +
                std::to_string(min_major) + "." + std::to_string(min_minor) + " or newer.";
    return c;
  }
  if (device < 0 || device >= count) {
    c.bad_ordinal = true;
    c.message = "GPU " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                " found; --device takes 0 to " + std::to_string(count - 1) + ")";
    return c;
  }
  try {
    return judge_gpu(query_device(device), min_major, min_minor);
  } catch (const CudaError& e) {
    c.message = std::string("cannot query GPU: ") + e.what();
    return c;
  }
}

}  // namespace tcu
