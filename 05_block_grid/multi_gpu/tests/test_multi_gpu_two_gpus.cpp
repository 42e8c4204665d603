// tcu::multi_gpu on two GPUs: one NCCL communicator over GPUs 0 and 1 (and 1 and 0: rank order
// is not device order). With fewer than two GPUs every case prints "SKIPPED: …" and CTest
// reports the test as skipped (SKIP_REGULAR_EXPRESSION), never as passed. Shards of 0, 1, 17,
// odd primes, 2^20 + 3 elements in all (not divisible by two), random sizes with a fixed seed;
// exact integer inputs and random ones; poisoned outputs; unaligned input pointers; the
// caller's non-blocking streams; another GPU's memory refused.
#include <doctest/doctest.h>

#include <cstdint>
#include <iostream>
#include <vector>

#include "05_block_grid/multi_gpu/partition.hpp"
#include "05_block_grid/multi_gpu/tests/multi_gpu_testing.hpp"

using namespace mgt;

namespace {

constexpr std::uint64_t kSeed = 4242;

// Whether two GPUs are visible; says SKIPPED otherwise (CTest turns that into "skipped").
bool two_gpus() {
  const int n = visible_gpus();
  if (n >= 2) return true;
  std::cout << "SKIPPED: fewer than two GPUs visible (" << n << "): the two-GPU cases need two\n";
  return false;
}

mg::Communicator two_ranks(std::vector<int> devices) {
  mg::Communicator comm;
  const cudaError_t e = comm.init(devices);
  INFO(comm.last_error());
  REQUIRE(e == cudaSuccess);
  REQUIRE(comm.size() == 2);
  return comm;
}

}  // namespace

TEST_CASE("two GPUs: every form over shards of odd and empty sizes, aligned or not, both streams") {
  if (!two_gpus()) return;
  mg::Communicator comm = two_ranks({0, 1});
  const std::vector<std::vector<std::int64_t>> shapes{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {17, 5}, {0, 65537},
                                                      {65537, 0}, {65521, 65537}, {16384, 16385}};
  for (const auto& counts : shapes)
    for (Dist dist : {Dist::integers, Dist::uniform})
      for (std::int64_t offset : {0, 1})
        for (bool own : {true, false}) check_all_forms(comm, counts, dist, offset, own, kSeed + counts[0]);
}

TEST_CASE("two GPUs: 2^20 + 3 elements cut by shard_of (not divisible by two), exact and random") {
  if (!two_gpus()) return;
  mg::Communicator comm = two_ranks({0, 1});
  const std::vector<std::int64_t> counts = mg::shard_counts((1 << 20) + 3, 2);
  for (Dist dist : {Dist::integers, Dist::normal}) check_all_forms(comm, counts, dist, 1, false, kSeed);
}

TEST_CASE("two GPUs: random shard sizes (fixed seed)") {
  if (!two_gpus()) return;
  mg::Communicator comm = two_ranks({0, 1});
  for (std::uint64_t k = 0; k < 6; ++k) {
    const std::int64_t a = static_cast<std::int64_t>(tcu::splitmix64(kSeed + 2 * k) % 200000);
    const std::int64_t b = static_cast<std::int64_t>(tcu::splitmix64(kSeed + 2 * k + 1) % 200000);
    check_all_forms(comm, {a, b}, k % 2 ? Dist::uniform : Dist::integers, static_cast<std::int64_t>(k % 2),
                    k % 3 == 0, kSeed + k);
  }
}

TEST_CASE("two GPUs: rank 0 on GPU 1, rank 1 on GPU 0") {
  if (!two_gpus()) return;
  mg::Communicator comm = two_ranks({1, 0});
  CHECK(comm.device(0) == 1);
  check_all_forms(comm, {40001, 30011}, Dist::integers, 1, true, kSeed);
}

TEST_CASE("two GPUs: the from-host forms") {
  if (!two_gpus()) return;
  mg::Communicator comm = two_ranks({0, 1});
  check_from_host(comm, {17, 100003}, Dist::integers, 1, true, kSeed);
  check_from_host(comm, {0, 5}, Dist::integers, 0, false, kSeed);
  check_from_host(comm, {65537, 65521}, Dist::uniform, 0, true, kSeed);
}

TEST_CASE("[large] two GPUs: the from-host forms over several upload chunks") {
  if (!two_gpus()) return;
  mg::Communicator comm = two_ranks({0, 1});
  check_from_host(comm, {mg::kUploadChunkElems + 3, 2 * mg::kUploadChunkElems + 1}, Dist::integers, 1, true, kSeed);
}

TEST_CASE("two GPUs: memory of the other GPU is refused, nothing written") {
  if (!two_gpus()) return;
  mg::Communicator comm = two_ranks({0, 1});
  Sharded a(comm, {100, 100}, Dist::integers, 0, kSeed);
  a.poison({comm.stream(0), comm.stream(1)});
  const std::vector<const __half*> in = a.in();
  const std::vector<float*> out = a.out(), sum = a.sum();
  CHECK(mg::InclusiveSum(comm, {in[1], in[0]}, a.counts(), out) == cudaErrorInvalidValue);
  CHECK(mg::InclusiveSum(comm, in, a.counts(), {out[1], out[0]}) == cudaErrorInvalidValue);
  CHECK(mg::Sum(comm, in, a.counts(), {sum[1], sum[0]}) == cudaErrorInvalidValue);
  CHECK(mg::Sum(comm, in, {100, 100}, {sum[0], nullptr}) == cudaErrorInvalidValue);  // every rank gets the sum
  CHECK(mg::Sum(comm, in, {100, 0}, {sum[0], nullptr}) == cudaErrorInvalidValue);
  CHECK(mg::InclusiveSum(comm, {in[0], nullptr}, {100, 0}, {out[0], nullptr}) == cudaSuccess);  // empty rank 1
  a.sync();
  bool tail = false;
  const std::vector<float> got = a.scan_result(tail);
  for (std::size_t i = 100; i < got.size(); ++i) CHECK(std::isnan(got[i]));  // rank 1 untouched
  for (float f : a.sums()) CHECK(std::isnan(f));
}
