#include <doctest/doctest.h>

#include "common/bandwidth.cuh"
#include "common/device_info.cuh"

TEST_CASE("version strings") {
  CHECK(tcu::format_cuda_version(13000) == "13.0");
  CHECK(tcu::format_cuda_version(12040) == "12.4");
  CHECK(tcu::format_cccl_version(3000001) == "3.0.1");
  CHECK(tcu::format_cccl_version(2008002) == "2.8.2");
}

TEST_CASE("CCCL version from THRUST_VERSION, for CCCLs older than CCCL_VERSION") {
  static_assert(tcu::cccl_version_from_thrust(200200) == 2002000);  // CCCL 2.2.0: CUDA 12.2, JetPack 6.0
  CHECK(tcu::cccl_version_from_thrust(200302) == 2003002);          // CCCL 2.3.2: CUDA 12.4
  CHECK(tcu::cccl_version_from_thrust(300001) == 3000001);          // CCCL 3.0.1: CUDA 13.0
  CHECK(tcu::cccl_version_from_thrust(301099) == 3010099);          // a two-digit minor: 3.10.99
  CHECK(tcu::format_cccl_version(tcu::cccl_version_from_thrust(200200)) == "2.2.0");
  // The build's own CCCL reads as 2.x or newer, however it was found.
  CHECK(tcu::built_cccl_version() >= 2000000);
}

TEST_CASE("judge_gpu: tensor cores need compute capability 7.0") {
  tcu::DeviceInfo d;
  d.name = "Old";
  d.cc_major = 6;
  d.cc_minor = 1;
  auto c = tcu::judge_gpu(d, 7, 0);
  CHECK_FALSE(c.ok);
  CHECK(c.message.find("compute capability 6.1") != std::string::npos);
  CHECK(c.message.find("7.0 or newer") != std::string::npos);
  d.cc_major = 7;
  d.cc_minor = 0;
  CHECK(tcu::judge_gpu(d, 7, 0).ok);
  CHECK_FALSE(tcu::judge_gpu(d, 8, 0).ok);  // bf16/tf32 need 8.0
  d.cc_major = 9;
  CHECK(tcu::judge_gpu(d, 8, 0).ok);
  d.cc_major = 7;
  d.cc_minor = 2;  // Jetson Xavier
  CHECK(tcu::judge_gpu(d, 7, 0).ok);
}

TEST_CASE("theoretical bandwidth from memory clock and bus width") {
  tcu::DeviceInfo d;
  d.mem_clock_mhz = 2619;  // H100 SXM HBM3 as reported by the attribute
  d.mem_bus_width_bits = 5120;
  CHECK(d.theoretical_bandwidth_gb_per_s() == doctest::Approx(3352.32));
}

TEST_CASE("probe_size: request, memory cap, minimum, 16-byte multiple") {
  const std::size_t GiB = std::size_t(1) << 30;
  CHECK(tcu::probe_size(512u << 20, 80 * GiB) == (512u << 20));
  CHECK(tcu::probe_size(512u << 20, 1 * GiB) == (256u << 20));  // a quarter of free memory
  CHECK(tcu::probe_size(100, 80 * GiB) == 16 * 1024);
  CHECK(tcu::probe_size((1u << 20) + 7, 80 * GiB) == (1u << 20));
}

TEST_CASE("check_gpu never throws and explains itself") {
  const tcu::GpuCheck c = tcu::check_gpu(7, 0, 4096);  // no machine has 4097 GPUs
  CHECK_FALSE(c.ok);
  CHECK_FALSE(c.message.empty());
}
