// NVML opened at run time (energy_counter.hpp says why).
#include "03_tcu_reduction/bench/energy_counter.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <type_traits>

namespace tcu::bench::reduce {
namespace {

// The NVML types and the five entry points used here, as the NVML API reference gives them;
// where the toolkit has nvml.h, the static_asserts below hold them to it.
using NvmlReturn = int;  // nvmlReturn_t: NVML_SUCCESS = 0
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
using InitFn = NvmlReturn (*)();
using ShutdownFn = NvmlReturn (*)();
using HandleByBusIdFn = NvmlReturn (*)(const char*, NvmlDevice*);
using TotalEnergyFn = NvmlReturn (*)(NvmlDevice, unsigned long long*);
using ErrorStringFn = const char* (*)(NvmlReturn);

}  // namespace
}  // namespace tcu::bench::reduce

#if __has_include(<nvml.h>)
#include <nvml.h>
namespace tcu::bench::reduce {
static_assert(sizeof(nvmlReturn_t) == sizeof(NvmlReturn) && NVML_SUCCESS == kNvmlSuccess);
static_assert(sizeof(nvmlDevice_t) == sizeof(NvmlDevice));
static_assert(std::is_same_v<decltype(&nvmlDeviceGetTotalEnergyConsumption),
                             nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*)>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetHandleByPciBusId_v2),
                             nvmlReturn_t (*)(const char*, nvmlDevice_t*)>);
static_assert(std::is_same_v<decltype(&nvmlInit_v2), nvmlReturn_t (*)()>);
}  // namespace tcu::bench::reduce
#endif

namespace tcu::bench::reduce {

struct EnergyCounter::Api {
  InitFn init = nullptr;
  ShutdownFn shutdown = nullptr;
  HandleByBusIdFn handle_by_bus_id = nullptr;
  TotalEnergyFn total_energy = nullptr;
  ErrorStringFn error_string = nullptr;
};

namespace {

template <class Fn>
bool resolve(void* library, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

}  // namespace

EnergyCounter::EnergyCounter(int device, const char* library) {
  library_ = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    const char* why = dlerror();
    status_ = std::string("n/a (") + library + " cannot be opened: " + (why ? why : "unknown reason") +
              "; NVML comes with the NVIDIA driver)";
    return;
  }
  api_ = std::make_unique<Api>();
  // The _v2 names are the ones nvml.h maps nvmlInit and the bus-id lookup to.
  if (!resolve(library_, "nvmlInit_v2", api_->init) || !resolve(library_, "nvmlShutdown", api_->shutdown) ||
      !resolve(library_, "nvmlDeviceGetHandleByPciBusId_v2", api_->handle_by_bus_id) ||
      !resolve(library_, "nvmlDeviceGetTotalEnergyConsumption", api_->total_energy) ||
      !resolve(library_, "nvmlErrorString", api_->error_string)) {
    status_ = std::string("n/a (") + library + " lacks an NVML entry point this program uses)";
    return;
  }
  if (const NvmlReturn r = api_->init(); r != kNvmlSuccess) {
    status_ = std::string("n/a (nvmlInit: ") + api_->error_string(r) + ")";
    return;
  }
  inited_ = true;
  // NVML numbers GPUs its own way; the PCI bus id names the one CUDA calls `device`.
  char bus[32] = {};
  NvmlDevice handle = nullptr;
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) {
    cudaGetLastError();  // clear the non-sticky error
    status_ = "n/a (no CUDA device " + std::to_string(device) + ")";
    return;
  }
  if (api_->handle_by_bus_id(bus, &handle) != kNvmlSuccess) {
    status_ = "n/a (no NVML handle for this GPU)";
    return;
  }
  device_ = handle;
  unsigned long long mj = 0;
  if (const NvmlReturn r = api_->total_energy(handle, &mj); r != kNvmlSuccess) {
    status_ = std::string("n/a (nvmlDeviceGetTotalEnergyConsumption: ") + api_->error_string(r) + ")";
    return;
  }
  ok_ = true;
  status_ = "NVML total energy counter";
}

EnergyCounter::~EnergyCounter() {
  if (inited_) api_->shutdown();
  if (library_ != nullptr) dlclose(library_);
}

double EnergyCounter::millijoules() const {
  unsigned long long mj = 0;
  if (ok_ && api_->total_energy(static_cast<NvmlDevice>(device_), &mj) == kNvmlSuccess) return static_cast<double>(mj);
  return 0;
}

}  // namespace tcu::bench::reduce
