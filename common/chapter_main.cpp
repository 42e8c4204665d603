#include "common/chapter_main.hpp"

#include <exception>
#include <iostream>

#include "common/exit_codes.hpp"

namespace tcu {

int require_gpu(const std::string& program, int device, DeviceInfo& info, int min_major, int min_minor) {
  const GpuCheck c = check_gpu(min_major, min_minor, device);
  if (!c.ok) {
    std::cerr << program << ": " << c.message << "\n";
    return c.bad_ordinal ? kExitUsage : kExitNoGpu;
  }
  info = c.info;
  return -1;
}

int run_guarded(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return kExitVerificationFailed;
  }
}

}  // namespace tcu
