// tcu::multi_gpu on one GPU (a one-rank communicator: ncclCommInitAll with one device), and the
// two device steps every rank runs: the look-back scan seeded with a carry and the fixed-order
// sum of the totals. The two-GPU cases are in test_multi_gpu_two_gpus.cpp. Sizes 0, 1, 17, odd
// primes, 2^20 + 3; exact integer inputs and random ones with fixed seeds; poisoned outputs;
// input pointers one element off alignment; the caller's non-blocking streams; invalid
// arguments. The "[large]" cases (ctest runs them, the sanitizers leave them out): uploads of
// several chunks.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "05_block_grid/kernels/launchers.hpp"
#include "05_block_grid/multi_gpu/partition.hpp"
#include "05_block_grid/multi_gpu/tests/multi_gpu_testing.hpp"
#include "05_block_grid/tcu_device.cuh"
#include "common/testing/compare.hpp"

using namespace mgt;

namespace {

constexpr std::uint64_t kSeed = 777;

mg::Communicator one_rank() {
  mg::Communicator comm;
  const cudaError_t e = comm.init({0});
  INFO(comm.last_error());
  REQUIRE(e == cudaSuccess);
  REQUIRE(comm.size() == 1);
  return comm;
}

}  // namespace

TEST_CASE("Communicator: bad device lists are refused, a one-rank communicator works") {
  const int gpus = visible_gpus();
  mg::Communicator comm;
  CHECK(comm.size() == 0);
  CHECK(comm.init({}) == cudaErrorInvalidValue);
  CHECK(comm.init({-1}) == cudaErrorInvalidValue);
  CHECK(comm.init({gpus}) == cudaErrorInvalidValue);
  CHECK(comm.init({0, 0}) == cudaErrorInvalidValue);  // one rank per GPU
  CHECK(comm.size() == 0);
  // No ranks: every call is refused.
  float* out = nullptr;
  CHECK(mg::Sum(comm, {}, {}, {}) == cudaErrorInvalidValue);
  CHECK(mg::InclusiveSum(comm, {nullptr}, {1}, {out}) == cudaErrorInvalidValue);
  CHECK(mg::all_devices().size() == static_cast<std::size_t>(gpus));

  TCU_CUDA_CHECK(cudaSetDevice(0));
  mg::Communicator one = one_rank();
  CHECK(one.device(0) == 0);
  CHECK(one.stream(0) != nullptr);
  mg::Communicator moved = std::move(one);
  CHECK(moved.size() == 1);
  CHECK(one.size() == 0);  // NOLINT: a moved-from communicator has no ranks
}

TEST_CASE("one GPU: Sum, InclusiveSum, ExclusiveSum vs FP64 over odd sizes, aligned or not, both streams") {
  mg::Communicator comm = one_rank();
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(17), std::int64_t(257), std::int64_t(16411),
                         std::int64_t(65537)})
    for (Dist dist : {Dist::integers, Dist::uniform})
      for (std::int64_t offset : {0, 1})
        for (bool own : {true, false}) check_all_forms(comm, {n}, dist, offset, own, kSeed + n);
}

TEST_CASE("[large] one GPU: 2^20 + 3 elements, integer (exact) and normal data") {
  mg::Communicator comm = one_rank();
  for (Dist dist : {Dist::integers, Dist::normal}) check_all_forms(comm, {(1 << 20) + 3}, dist, 1, false, kSeed);
}

TEST_CASE("one GPU: the from-host forms (pinned and pageable memory), one chunk") {
  mg::Communicator comm = one_rank();
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(17), std::int64_t(100003)})
    for (bool pinned : {true, false}) check_from_host(comm, {n}, Dist::integers, 1, pinned, kSeed);
  check_from_host(comm, {65537}, Dist::uniform, 0, true, kSeed);
}

TEST_CASE("[large] one GPU: the from-host forms over several upload chunks") {
  mg::Communicator comm = one_rank();
  check_from_host(comm, {2 * mg::kUploadChunkElems + 5}, Dist::integers, 1, true, kSeed);
  check_from_host(comm, {mg::kUploadChunkElems + 1}, Dist::normal, 0, true, kSeed);
}

TEST_CASE("the call restores the caller's current device") {
  mg::Communicator comm = one_rank();
  Sharded a(comm, {1000}, Dist::integers, 0, kSeed);
  TCU_CUDA_CHECK(cudaSetDevice(0));
  REQUIRE(mg::InclusiveSum(comm, a.in(), a.counts(), a.out()) == cudaSuccess);
  int dev = -1;
  TCU_CUDA_CHECK(cudaGetDevice(&dev));
  CHECK(dev == 0);
  a.sync();
}

TEST_CASE("invalid arguments: cudaErrorInvalidValue, nothing written") {
  mg::Communicator comm = one_rank();
  Sharded a(comm, {100}, Dist::integers, 0, kSeed);
  std::vector<cudaStream_t> streams{comm.stream(0)};
  a.poison(streams);
  const std::vector<const __half*> in = a.in();
  const std::vector<float*> out = a.out(), sum = a.sum();
  const std::vector<std::int64_t> n = a.counts();
  const __half* odd_in = reinterpret_cast<const __half*>(reinterpret_cast<const char*>(in[0]) + 1);
  float* odd_out = reinterpret_cast<float*>(reinterpret_cast<char*>(out[0]) + 2);
  for (bool scan : {false, true}) {
    auto call = [&](const std::vector<const __half*>& i, const std::vector<std::int64_t>& c,
                    const std::vector<float*>& o, const std::vector<cudaStream_t>& s = {}) {
      return scan ? mg::InclusiveSum(comm, i, c, o, s) : mg::Sum(comm, i, c, o, s);
    };
    const std::vector<float*>& o = scan ? out : sum;
    CHECK(call({}, n, o) == cudaErrorInvalidValue);                         // a vector of the wrong length
    CHECK(call(in, {100, 1}, o) == cudaErrorInvalidValue);
    CHECK(call(in, n, {}) == cudaErrorInvalidValue);
    CHECK(call(in, n, o, {comm.stream(0), comm.stream(0)}) == cudaErrorInvalidValue);
    CHECK(call(in, {-1}, o) == cudaErrorInvalidValue);                      // a negative size
    CHECK(call({nullptr}, n, o) == cudaErrorInvalidValue);                  // null with work to do
    CHECK(call(in, n, {nullptr}) == cudaErrorInvalidValue);
    CHECK(call({odd_in}, n, o) == cudaErrorInvalidValue);                   // not aligned to __half
    CHECK(call(in, n, {odd_out}) == cudaErrorInvalidValue);                 // not aligned to float
    CHECK(call({nullptr}, {0}, {nullptr}) == cudaSuccess);                  // nothing to do
  }
  // From host: the host pointers must not be device memory, d_in must be there.
  CHECK(mg::SumFromHost(comm, {in[0]}, n, a.in_mut(), sum) == cudaErrorInvalidValue);
  CHECK(mg::SumFromHost(comm, {a.host.data()}, n, {nullptr}, sum) == cudaErrorInvalidValue);
  CHECK(mg::SumFromHost(comm, {nullptr}, n, a.in_mut(), sum) == cudaErrorInvalidValue);
  CHECK(mg::SumFromHost(comm, {}, n, a.in_mut(), sum) == cudaErrorInvalidValue);
  CHECK(mg::detail::scan_with_carry(in[0], out[0], -1, true, nullptr, 0) == cudaErrorInvalidValue);
  CHECK(mg::detail::scan_with_carry(odd_in, out[0], 10, true, nullptr, 0) == cudaErrorInvalidValue);
  CHECK(mg::detail::sum_in_rank_order(nullptr, 3, sum[0], 0) == cudaErrorInvalidValue);
  CHECK(mg::detail::sum_in_rank_order(out[0], -1, sum[0], 0) == cudaErrorInvalidValue);
  a.sync();
  bool tail = false;
  for (float f : a.scan_result(tail)) CHECK(std::isnan(f));
  for (float f : a.sums()) CHECK(std::isnan(f));
}

namespace {

// The look-back scan seeded with *d_carry: exactly carry + the integer prefix (all below 2^24).
void check_seeded_scan(std::int64_t n, float carry, bool inclusive, std::int64_t offset) {
  INFO("n = " << n << ", carry " << carry << (inclusive ? ", inclusive" : ", exclusive") << ", offset " << offset);
  std::vector<__half> h(static_cast<std::size_t>(n));
  tcu::fill_host(h.data(), h.size(), Dist::integers, kSeed + static_cast<std::uint64_t>(n));
  TCU_CUDA_CHECK(cudaSetDevice(0));
  tcu::DeviceBuffer<__half> in(static_cast<std::size_t>(n + offset + 1));
  tcu::DeviceBuffer<float> out(static_cast<std::size_t>(n + 1)), c(1);
  TCU_CUDA_CHECK(cudaMemcpy(in.data() + offset, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
  TCU_CUDA_CHECK(cudaMemcpy(c.data(), &carry, 4, cudaMemcpyHostToDevice));
  tcu::poison_device(out.data(), out.bytes());
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE(mg::detail::scan_with_carry(in.data() + offset, out.data(), n, inclusive, c.data(), 0) == cudaSuccess);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> got(static_cast<std::size_t>(n + 1));
  TCU_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), got.size() * 4, cudaMemcpyDeviceToHost));
  std::vector<float> want;
  double acc = carry;
  for (const __half& x : h) {
    if (!inclusive) want.push_back(static_cast<float>(acc));
    acc += static_cast<double>(__half2float(x));
    if (inclusive) want.push_back(static_cast<float>(acc));
  }
  got.pop_back();
  tcu::testing::check_elements(got, want, "the seeded scan");
  std::vector<float> tail(1);
  TCU_CUDA_CHECK(cudaMemcpy(tail.data(), out.data() + n, 4, cudaMemcpyDeviceToHost));
  CHECK(std::isnan(tail[0]));
}

}  // namespace

TEST_CASE("the look-back scan seeded with a carry: every prefix starts from it, exact") {
  for (std::int64_t n : {std::int64_t(1), std::int64_t(17), std::int64_t(16384), std::int64_t(16385),
                         std::int64_t(100003)})
    for (float carry : {0.0f, 1000.0f, -37.5f, 1048576.0f})
      for (bool inclusive : {true, false}) check_seeded_scan(n, carry, inclusive, n % 2);
}

TEST_CASE("the look-back scan without a carry is chapter 05's grid_lookback, bit for bit") {
  const std::int64_t n = 70001;
  Sharded a(one_rank(), {n}, Dist::uniform, 1, kSeed);
  TCU_CUDA_CHECK(cudaSetDevice(0));
  tcu::DeviceBuffer<float> ref(static_cast<std::size_t>(n));
  for (bool inclusive : {true, false}) {
    REQUIRE(mg::detail::scan_with_carry(a.in()[0], a.out()[0], n, inclusive, nullptr, 0) == cudaSuccess);
    const auto algo = tcu::DeviceScanAlgorithm::grid_lookback;
    REQUIRE((inclusive ? tcu::device_inclusive_scan_sum(algo, a.in()[0], ref.data(), 1, n)
                       : tcu::device_exclusive_scan_sum(algo, a.in()[0], ref.data(), 1, n)) == cudaSuccess);
    TCU_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
    TCU_CUDA_CHECK(cudaMemcpy(x.data(), a.out()[0], x.size() * 4, cudaMemcpyDeviceToHost));
    TCU_CUDA_CHECK(cudaMemcpy(y.data(), ref.data(), y.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(std::memcmp(x.data(), y.data(), x.size() * 4) == 0);
  }
}

TEST_CASE("the fixed-order sum of the totals: the host model's bits") {
  TCU_CUDA_CHECK(cudaSetDevice(0));
  std::vector<float> v;
  for (int i = 0; i < 100; ++i) v.push_back(static_cast<float>(tcu::sample_value(Dist::normal, kSeed, i)) * 1e6f);
  v[3] = 16777216.0f;  // 2^24 then 1s: fp32 would drop them, double keeps them
  v[4] = 1.0f;
  v[5] = 1.0f;
  tcu::DeviceBuffer<float> d(v.size()), out(1);
  TCU_CUDA_CHECK(cudaMemcpy(d.data(), v.data(), v.size() * 4, cudaMemcpyHostToDevice));
  for (int count : {0, 1, 2, 6, 7, 100}) {
    INFO("count " << count);
    REQUIRE(mg::detail::sum_in_rank_order(d.data(), count, out.data(), 0) == cudaSuccess);
    float got = 0;
    TCU_CUDA_CHECK(cudaMemcpy(&got, out.data(), 4, cudaMemcpyDeviceToHost));
    const float want = mg::sum_in_rank_order(v.data(), count);
    CHECK(std::memcmp(&got, &want, 4) == 0);
  }
}
