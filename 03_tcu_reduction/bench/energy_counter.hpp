#pragma once
// NVML's total energy counter of one GPU, for `03_tcu_reduction --energy`.
//
// NVML belongs to the driver (libnvidia-ml.so.1), not to the toolkit: a binary linked against
// the toolkit's NVML stub cannot even start on a machine without the driver (a CI machine, a
// container without the driver libraries). So NVML is opened at run time, only when energy is
// asked for, and its absence makes the energy columns n/a, never the chapter unable to start.
#include <memory>
#include <string>

namespace tcu::bench::reduce {

// The NVML shared library as the driver installs it.
inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

class EnergyCounter {
 public:
  // Opens `library` (NVML), initialises it and finds the GPU CUDA calls `device`. On any
  // failure ok() is false and status() says which step failed; it never throws.
  explicit EnergyCounter(int device, const char* library = kNvmlLibrary);
  ~EnergyCounter();
  EnergyCounter(const EnergyCounter&) = delete;
  EnergyCounter& operator=(const EnergyCounter&) = delete;

  bool ok() const { return ok_; }
  // "NVML total energy counter", or "n/a (why)".
  const std::string& status() const { return status_; }
  // The counter in millijoules since the driver loaded; 0 when !ok().
  double millijoules() const;

 private:
  struct Api;  // the NVML entry points, resolved from the opened library
  void* library_ = nullptr;
  std::unique_ptr<Api> api_;
  void* device_ = nullptr;  // nvmlDevice_t
  bool inited_ = false, ok_ = false;
  std::string status_;
};

}  // namespace tcu::bench::reduce
