// GPU tests of common/: device data equals host data, poisoning, timing, the bandwidth probe.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "common/bandwidth.cuh"
#include "common/check.cuh"
#include "common/data.cuh"
#include "common/device_buffer.cuh"
#include "common/device_info.cuh"
#include "common/timer.cuh"
#include "common/verify.hpp"

namespace {

template <class T>
std::uint32_t bits_of(T v) {
  std::uint32_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

template <class T>
void check_device_matches_host(tcu::Dist dist, std::size_t n, std::uint64_t seed, std::uint64_t offset) {
  tcu::DeviceBuffer<T> d(n);
  tcu::poison_device(d.data(), d.bytes());
  tcu::fill_device(d.data(), n, dist, seed, 0, offset);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> got(n), want(n);
  d.copy_to_host(got.data(), n);
  tcu::fill_host(want.data(), n, dist, seed, offset);
  std::size_t differ = 0, differ_more_than_one_ulp = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t g = bits_of(got[i]), w = bits_of(want[i]);
    if (g != w) {
      ++differ;
      const std::int64_t gap = std::int64_t(g) - std::int64_t(w);
      if (gap > 1 || gap < -1) ++differ_more_than_one_ulp;
    }
  }
  INFO("dist " << tcu::dist_name(dist) << ", n " << n << ", offset " << offset);
  if (dist == tcu::Dist::normal) {
    // log/cos on the GPU may differ from the host's by an ulp of a double; after rounding
    // to fp16/fp32 that can flip a last bit, never more.
    CHECK(differ_more_than_one_ulp == 0);
  } else {
    CHECK(differ == 0);
  }
}

}  // namespace

TEST_CASE("the device generates exactly the host's data") {
  for (auto dist : {tcu::Dist::uniform, tcu::Dist::normal, tcu::Dist::ones, tcu::Dist::integers})
    for (std::size_t n : {std::size_t(1), std::size_t(17), std::size_t(1000003)}) {
      check_device_matches_host<__half>(dist, n, 99, 0);
      check_device_matches_host<float>(dist, n, 99, 12345);
    }
}

TEST_CASE("poison_device turns every element into NaN") {
  const std::size_t n = 4099;
  tcu::DeviceBuffer<float> f(n);
  tcu::DeviceBuffer<__half> h(n);
  tcu::fill_device(f.data(), n, tcu::Dist::ones, 1);
  tcu::poison_device(f.data(), f.bytes());
  tcu::poison_device(h.data(), h.bytes());
  std::vector<float> hf(n);
  std::vector<__half> hh(n);
  f.copy_to_host(hf.data(), n);
  h.copy_to_host(hh.data(), n);
  std::vector<double> zeros(n, 0.0);
  CHECK(tcu::verify(hf.data(), zeros.data(), nullptr, n, tcu::exact_tolerance()).non_finite == n);
  CHECK(tcu::verify(hh.data(), zeros.data(), nullptr, n, tcu::exact_tolerance()).non_finite == n);
}

namespace {
__global__ void spin_kernel(float* out, int iters) {
  float x = threadIdx.x;
  for (int i = 0; i < iters; ++i) x = x * 0.999f + 1.0f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
}  // namespace

TEST_CASE("time_on_device: repeat samples, positive times") {
  tcu::DeviceBuffer<float> out(256 * 64);
  const auto t = tcu::time_on_device(
      [&](cudaStream_t s) {
        spin_kernel<<<64, 256, 0, s>>>(out.data(), 20000);
        TCU_CHECK_LAUNCH();
      },
      {2, 7});
  CHECK(t.samples == 7);
  CHECK(t.min_ms > 0);
  CHECK(t.min_ms <= t.median_ms);
  CHECK(t.median_ms <= t.max_ms);
}

TEST_CASE("time_on_device: warm-up rounds fill warmup_ms; warmup 0 runs exactly the timed calls") {
  tcu::DeviceBuffer<float> out(256);
  int calls = 0;
  auto work = [&](cudaStream_t s) {
    ++calls;
    spin_kernel<<<1, 256, 0, s>>>(out.data(), 10);
    TCU_CHECK_LAUNCH();
  };
  tcu::TimingConfig cfg{2, 3};
  cfg.warmup_ms = 20.0;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(tcu::time_on_device(work, cfg).samples == 3);
  CHECK(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() >= 20.0);
  CHECK(calls > 2 + 3);  // a tiny kernel: many rounds of 2 before 20 ms
  CHECK((calls - 3) % 2 == 0);  // whole rounds
  calls = 0;
  CHECK(tcu::time_on_device(work, tcu::TimingConfig{0, 4}).samples == 4);
  CHECK(calls == 4);
}

// compute-sanitizer reports every failed API call, deliberate or not: the device script
// excludes test cases named "[provokes API error]" from its sanitizer runs.
TEST_CASE("time_on_device: an impossible launch throws instead of being timed [provokes API error]") {
  tcu::DeviceBuffer<float> out(256);
  CHECK_THROWS_AS(tcu::time_on_device(
                      [&](cudaStream_t s) {
                        spin_kernel<<<1, 2048, 0, s>>>(out.data(), 1);
                        TCU_CHECK_LAUNCH();
                      },
                      {0, 1}),
                  tcu::CudaError);
}

TEST_CASE("device info of the running GPU") {
  const tcu::GpuCheck c = tcu::check_gpu(7, 0);
  REQUIRE(c.ok);
  CHECK_FALSE(c.info.name.empty());
  CHECK(c.info.sm_count > 0);
  CHECK(c.info.cc_major >= 7);
  CHECK(c.info.sm_clock_mhz > 0);
  CHECK(c.info.global_mem_bytes > 0);
  CHECK(c.info.runtime_version >= 12000);
  CHECK(c.info.cccl_version > 0);
  MESSAGE(tcu::describe(c.info));
  const tcu::GpuCheck missing = tcu::check_gpu(7, 0, 4096);
  CHECK_FALSE(missing.ok);
  CHECK(missing.bad_ordinal);  // GPUs exist, just not that one: a usage error
}

TEST_CASE("bandwidth probe: verified copy, sane figures") {
  const tcu::GpuCheck c = tcu::check_gpu(7, 0);
  REQUIRE(c.ok);
  const std::size_t bytes = std::size_t(256) << 20;
  const auto bw = tcu::run_bandwidth_probe(bytes, {2, 5});
  CHECK(bw.copy_verified);
  CHECK(bw.read_stream.bytes == bytes);
  CHECK(bw.copy.bytes == 2 * bytes);
  CHECK(bw.read_stream.gb_per_s() > 0);
  CHECK(bw.copy.gb_per_s() > 0);
  // A probe faster than the DRAM's theoretical rate would be measuring a cache, not memory.
  const double theory = c.info.theoretical_bandwidth_gb_per_s();
  if (theory > 0 && !c.info.integrated) {
    CHECK(bw.read_stream.gb_per_s() < 1.05 * theory);
    CHECK(bw.copy.gb_per_s() < 1.05 * theory);
  }
  MESSAGE("read_stream " << bw.read_stream.gb_per_s() << " GB/s, copy " << bw.copy.gb_per_s()
                         << " GB/s, theoretical " << theory << " GB/s");
}

TEST_CASE("read_sums probe: one fp32 per group written, bytes counted, sane figures") {
  const tcu::GpuCheck c = tcu::check_gpu(7, 0);
  REQUIRE(c.ok);
  const double theory = c.info.theoretical_bandwidth_gb_per_s();
  // 64 MiB: 2^25 fp16 elements, a multiple of neither 17 nor 1000 (the last group is cut short and
  // has no output); 16 KiB + 16 with 9: groups that straddle the 16-byte vectors everywhere
  struct Case {
    std::size_t bytes;
    std::int64_t every;
  };
  const Case cases[] = {{std::size_t(64) << 20, 17}, {std::size_t(64) << 20, 1000}, {16 * 1024 + 16, 9}};
  for (const Case& k : cases) {
    const std::size_t bytes = k.bytes;
    const std::int64_t every = k.every;
    CAPTURE(bytes);
    CAPTURE(every);
    const tcu::ReadSumsProbe r = tcu::run_read_sums_probe(every, bytes, {1, 3});
    const std::size_t outputs = bytes / 2 / static_cast<std::size_t>(every);
    CHECK(r.all_written);
    CHECK(r.every == every);
    CHECK(r.input_bytes == bytes);
    CHECK(r.result.bytes == bytes + 4 * outputs);
    CHECK(r.result.probe == "read_sums_" + std::to_string(every));
    CHECK(r.result.gb_per_s() > 0);
    if (theory > 0 && !c.info.integrated && bytes > (std::size_t(1) << 20))
      CHECK(r.result.gb_per_s() < 1.05 * theory);
  }
  CHECK_THROWS_AS(tcu::run_read_sums_probe(7, std::size_t(1) << 20, {0, 1}), std::invalid_argument);
}
