#pragma once
// cuBLAS status checks (only chapters that link CUDA::cublas include this).
#include <cublas_v2.h>

#include <string>

#include "common/check.cuh"

namespace tcu {

class CublasError : public std::runtime_error {
 public:
  explicit CublasError(const std::string& what) : std::runtime_error(what) {}
};

inline void cublas_check(cublasStatus_t st, const char* expr, const char* file, int line) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw CublasError(std::string(file) + ":" + std::to_string(line) + ": " + expr +
                      " failed: " + cublasGetStatusName(st) + " (" + cublasGetStatusString(st) + ")");
}

}  // namespace tcu

#define TCU_CUBLAS_CHECK(expr) ::tcu::cublas_check((expr), #expr, __FILE__, __LINE__)
