#pragma once
// Error checks for CUDA runtime calls and kernel launches.
//
// A failed call throws tcu::CudaError carrying the expression, file and line, so that a
// chapter's main() can print one clear message and exit, and a test can REQUIRE_NOTHROW.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tcu {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

inline std::string describe_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
         cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
}

inline void cuda_check(cudaError_t err, const char* expr, const char* file, int line) {
  if (err != cudaSuccess) throw CudaError(err, describe_cuda_error(err, expr, file, line));
}

}  // namespace tcu

// Wrap every CUDA runtime call: TCU_CUDA_CHECK(cudaMalloc(&p, bytes));
#define TCU_CUDA_CHECK(expr) ::tcu::cuda_check((expr), #expr, __FILE__, __LINE__)

// After every launch: catches bad launch configurations at once. Errors raised while the
// kernel runs surface at the next synchronising call, which is checked as well.
#define TCU_CHECK_LAUNCH() ::tcu::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
