#pragma once
// Exit codes shared by every chapter executable (see BRIEF: "Exit codes").
namespace tcu {
inline constexpr int kExitOk = 0;                 // everything ran and verified
inline constexpr int kExitVerificationFailed = 1; // a check failed (or a CUDA error mid-run)
inline constexpr int kExitUsage = 2;              // bad flags or impossible sizes
inline constexpr int kExitNoGpu = 3;              // no GPU, or too old a GPU
inline constexpr int kExitSkipTest = 77;          // test binaries only: CTest SKIP_RETURN_CODE
}  // namespace tcu
