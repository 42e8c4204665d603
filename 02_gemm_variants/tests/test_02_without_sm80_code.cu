// Chapter 02, GPU test of the sm_80 dispatch on a build that holds no sm_80 code: this binary's
// kernels are compiled for sm_75 with compute_75 PTX only (CMakeLists.txt), like a Xavier build
// (sm_72) run on an Orin. On an sm_8x/sm_9x GPU the driver JIT-compiles that PTX, in which the
// bodies of steps 10 and 11 are compiled out: the launchers must refuse them, and say why,
// instead of launching empty kernels. Step 9 (plain WMMA) runs from the same PTX and is exact.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "02_gemm_variants/gemm_variants.cuh"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/kernel_image.cuh"

namespace gm = tcu::gemm;

namespace {

// The __CUDA_ARCH__ the code this GPU runs was compiled for, seen from inside a kernel.
__global__ void cuda_arch_probe(int* arch) {
#ifdef __CUDA_ARCH__
  *arch = __CUDA_ARCH__;
#endif
}

int device_side_cuda_arch() {
  tcu::DeviceBuffer<int> arch(1);
  TCU_CUDA_CHECK(cudaMemset(arch.data(), 0, sizeof(int)));
  cuda_arch_probe<<<1, 1>>>(arch.data());
  TCU_CUDA_CHECK(cudaGetLastError());
  int host = 0;
  arch.copy_to_host(&host, 1);
  return host;
}

}  // namespace

TEST_CASE("a build without sm_80 code: steps 10 and 11 refused with the reason, step 9 still exact") {
  int device = 0, major = 0, minor = 0;
  TCU_CUDA_CHECK(cudaGetDevice(&device));
  TCU_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  TCU_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major * 10 + minor < 75) {
    MESSAGE("sm_" << major * 10 + minor << " cannot run sm_75 code: nothing to check on this GPU");
    return;
  }
  REQUIRE(device_side_cuda_arch() == 750);  // the PTX this test is built from, JIT-compiled
  CHECK(tcu::require_kernel_image(reinterpret_cast<const void*>(cuda_arch_probe), 80) == cudaErrorNotSupported);
  CHECK(tcu::require_kernel_image(reinterpret_cast<const void*>(cuda_arch_probe), 75) == cudaSuccess);

  const std::string why = gm::sm80_steps_unavailable();
  INFO(why);
  CHECK_FALSE(why.empty());
  if (major >= 8) CHECK(why.find("compute_75") != std::string::npos);  // the build, not the GPU, is why

  // 32×32×32 with small integers: every sum is exact in fp32.
  const gm::GemmProblem p{32, 32, 32};
  std::vector<__half> a(p.m * p.k), b(p.k * p.n);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = __float2half(static_cast<float>(static_cast<int>(i % 7) - 3));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = __float2half(static_cast<float>(static_cast<int>(i % 5) - 2));
  tcu::DeviceBuffer<__half> da(a.size()), db(b.size());
  tcu::DeviceBuffer<float> dc(static_cast<std::size_t>(p.m * p.n));
  da.copy_from_host(a.data(), a.size());
  db.copy_from_host(b.data(), b.size());
  const gm::GemmArgs<__half> g = gm::packed_args(p, da.data(), db.data(), dc.data());
  std::vector<float> got(dc.size());

  for (auto step : {gm::gemm_wmma_pipelined, gm::gemm_mma_sync_ldmatrix}) {
    TCU_CUDA_CHECK(cudaMemset(dc.data(), 0xFF, dc.bytes()));  // NaN everywhere
    CHECK(step(g, 0) == cudaErrorNotSupported);
    TCU_CUDA_CHECK(cudaDeviceSynchronize());
    dc.copy_to_host(got.data(), got.size());
    CHECK(std::isnan(got[0]));  // nothing launched, nothing written
  }

  TCU_CUDA_CHECK(cudaMemset(dc.data(), 0xFF, dc.bytes()));
  REQUIRE(gm::gemm_wmma_shmem(g, 0) == cudaSuccess);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  dc.copy_to_host(got.data(), got.size());
  int wrong = 0;
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) {
      float want = 0;
      for (std::int64_t k = 0; k < p.k; ++k) want += __half2float(a[i * p.k + k]) * __half2float(b[k * p.n + j]);
      wrong += got[i * p.n + j] != want;
    }
  CHECK(wrong == 0);
}
