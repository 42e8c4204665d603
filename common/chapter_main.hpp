#pragma once
// The skeleton every chapter's main() shares: flags first (exit 2), then the GPU (exit 3),
// then the work, with CUDA errors turned into one clear message (exit 1).
#include <functional>
#include <string>

#include "common/device_info.cuh"

namespace tcu {

// Looks for GPU `device` with compute capability >= min_major.min_minor. Returns -1 and fills
// `info` when it is usable; otherwise prints why to stderr and returns kExitNoGpu (3), or
// kExitUsage (2) when GPUs exist but `device` names none of them.
int require_gpu(const std::string& program, int device, DeviceInfo& info, int min_major = 7,
                int min_minor = 0);

// Runs `body` and returns its exit code; an exception becomes a message on stderr and exit 1.
int run_guarded(const std::string& program, const std::function<int()>& body);

}  // namespace tcu
