#include <doctest/doctest.h>

#include <iostream>
#include <sstream>

#include "common/check.cuh"
#include "common/check_cublas.cuh"
#include "common/report.hpp"

TEST_CASE("TCU_CUDA_CHECK throws CudaError naming the call, the place and the error") {
  CHECK_NOTHROW(TCU_CUDA_CHECK(cudaSuccess));
  try {
    TCU_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL("no exception");
  } catch (const tcu::CudaError& e) {
    CHECK(e.code() == cudaErrorInvalidValue);
    const std::string what = e.what();
    CHECK(what.find("cudaErrorInvalidValue") != std::string::npos);
    CHECK(what.find("test_check_progress.cpp") != std::string::npos);
  }
}

TEST_CASE("TCU_CUBLAS_CHECK throws with cuBLAS's own status name") {
  CHECK_NOTHROW(TCU_CUBLAS_CHECK(CUBLAS_STATUS_SUCCESS));
  CHECK_THROWS_WITH_AS(TCU_CUBLAS_CHECK(CUBLAS_STATUS_INVALID_VALUE), doctest::Contains("CUBLAS_STATUS_INVALID_VALUE"),
                       tcu::CublasError);
}

TEST_CASE("Progress writes numbered steps to stderr, or nothing when disabled") {
  std::ostringstream captured;
  std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
  tcu::Progress on("sweep", 3);
  on.step("segment 16");
  on.step("segment 32");
  tcu::Progress off("quiet", 2, false);
  off.step("x");
  std::cerr.rdbuf(old);
  const std::string s = captured.str();
  CHECK(s.find("[1/3] sweep: segment 16 (") == 0);
  CHECK(s.find("[2/3] sweep: segment 32 (") != std::string::npos);
  CHECK(s.find("quiet") == std::string::npos);
}
