// Chapter 05, host tests: the name tables, the shapes each algorithm takes, the automatic
// choice, and the argument checks (they return before anything touches a GPU).
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include "05_block_grid/tcu_device.cuh"
#include "common/tensor_core/launch.hpp"

using tcu::DeviceReduceAlgorithm;
using tcu::DeviceScanAlgorithm;

TEST_CASE("name tables round-trip and are unique") {
  std::set<std::string> names;
  for (DeviceReduceAlgorithm a : tcu::all_device_reduce_algorithms()) {
    const std::string name = tcu::device_reduce_algorithm_name(a);
    CHECK(names.insert("r:" + name).second);
    REQUIRE(tcu::parse_device_reduce_algorithm(name).has_value());
    CHECK(*tcu::parse_device_reduce_algorithm(name) == a);
    CHECK(std::string(tcu::device_reduce_algorithm_description(a)).size() > 5);
  }
  for (DeviceScanAlgorithm a : tcu::all_device_scan_algorithms()) {
    const std::string name = tcu::device_scan_algorithm_name(a);
    CHECK(names.insert("s:" + name).second);
    REQUIRE(tcu::parse_device_scan_algorithm(name).has_value());
    CHECK(*tcu::parse_device_scan_algorithm(name) == a);
  }
  CHECK(*tcu::parse_device_reduce_algorithm("auto") == DeviceReduceAlgorithm::automatic);
  CHECK(!tcu::parse_device_scan_algorithm("nonsense").has_value());
  CHECK(tcu::all_device_reduce_algorithms().front() == DeviceReduceAlgorithm::block_reduce);
  CHECK(tcu::all_device_scan_algorithms().front() == DeviceScanAlgorithm::block_scan);
}

TEST_CASE("what each algorithm takes, and the automatic choice") {
  CHECK(tcu::device_reduce_algorithm_supports(DeviceReduceAlgorithm::grid_single_pass, 1, 1000));
  CHECK(!tcu::device_reduce_algorithm_supports(DeviceReduceAlgorithm::grid_single_pass, 2, 1000));
  CHECK(!tcu::device_scan_algorithm_supports(DeviceScanAlgorithm::grid_lookback, 2, 1000));
  CHECK(!tcu::device_scan_algorithm_supports(DeviceScanAlgorithm::grid_warp_specialised, 2, 1000));
  CHECK(tcu::device_scan_algorithm_supports(DeviceScanAlgorithm::grid_warp_specialised, 1, 1000));
  CHECK(tcu::device_scan_algorithm_supports(DeviceScanAlgorithm::segmented_lookback, 1000, 17));
  CHECK(!tcu::device_scan_algorithm_supports(DeviceScanAlgorithm::block_scan, 1, 0));
  CHECK(tcu::device_reduce_algorithm_supports(DeviceReduceAlgorithm::warp_level, 4, 4) == tcu::device_has_warp_level());
  for (std::int64_t s : {1, 17, 256, 4096, 1 << 16, 1 << 28}) {
    for (std::int64_t ns : {1, 3, 1 << 12}) {
      const DeviceReduceAlgorithm r = tcu::choose_device_reduce_algorithm(ns, s);
      CHECK(r != DeviceReduceAlgorithm::automatic);
      CHECK(tcu::device_reduce_algorithm_supports(r, ns, s));
      const DeviceScanAlgorithm c = tcu::choose_device_scan_algorithm(ns, s, true);
      CHECK(c != DeviceScanAlgorithm::automatic);
      CHECK(tcu::device_scan_algorithm_supports(c, ns, s));
    }
  }
  // past one block tile, lesson 3c (grid_warp_specialised; its dispatch runs 3b where 3c cannot)
  CHECK(tcu::choose_device_scan_algorithm(1, 1 << 28, true) == DeviceScanAlgorithm::grid_warp_specialised);
  CHECK(tcu::choose_device_scan_algorithm(1, (1 << 14) + 1, false) == DeviceScanAlgorithm::grid_warp_specialised);
  // whole arrays up to one block tile (scan) or two (sum): one block
  CHECK(tcu::choose_device_scan_algorithm(1, 1 << 14, false) == DeviceScanAlgorithm::block_scan);
  CHECK(tcu::choose_device_reduce_algorithm(1, 1000) == DeviceReduceAlgorithm::block_reduce);
  CHECK(tcu::choose_device_reduce_algorithm(1, 1 << 15) == DeviceReduceAlgorithm::block_reduce);
  CHECK(tcu::choose_device_reduce_algorithm(1, (1 << 15) + 1) == DeviceReduceAlgorithm::grid_single_pass);
  // Long segments: one block per segment from 1.5 segments per SM on, else the look-back (without
  // a GPU the SM count is 1).
  const std::int64_t from = (3 * static_cast<std::int64_t>(tcu::tc::sm_count()) + 1) / 2;
  CHECK(tcu::choose_device_scan_algorithm(from, 1 << 22, true) == DeviceScanAlgorithm::block_scan);
  CHECK(tcu::choose_device_scan_algorithm(4 * from, 1 << 18, false) == DeviceScanAlgorithm::block_scan);
  if (from - 1 >= 2)
    CHECK(tcu::choose_device_scan_algorithm(from - 1, 1 << 22, true) == DeviceScanAlgorithm::segmented_lookback);
  CHECK(tcu::choose_device_scan_algorithm(from, 1000, true) != DeviceScanAlgorithm::block_scan);
}

TEST_CASE("invalid arguments are cudaErrorInvalidValue, zero elements success (no GPU needed)") {
  const __half* in = reinterpret_cast<const __half*>(std::uintptr_t(256));
  float* out = reinterpret_cast<float*>(std::uintptr_t(512));
  __half* hout = reinterpret_cast<__half*>(std::uintptr_t(512));
  CHECK(tcu::DeviceReduce::Sum(in, out, -1) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceReduce::Sum(nullptr, out, 5) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceReduce::Sum(in, nullptr, 5) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceReduce::Sum(nullptr, nullptr, 0) == cudaSuccess);
  CHECK(tcu::DeviceScan::InclusiveSum(in, hout, -3) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceScan::ExclusiveSum<float>(nullptr, nullptr, 0) == cudaSuccess);
  CHECK(tcu::DeviceScan::InclusiveSum(in, reinterpret_cast<float*>(std::uintptr_t(514)), 5) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceScan::InclusiveSum(reinterpret_cast<const __half*>(std::uintptr_t(257)), out, 5) ==
        cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedReduce::Sum(in, out, 3, 0) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedReduce::Sum(in, out, -1, 4) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedReduce::Sum(nullptr, nullptr, 0, 4) == cudaSuccess);
  CHECK(tcu::DeviceSegmentedScan::InclusiveSum(in, out, std::numeric_limits<std::int64_t>::max() / 2, 4) ==
        cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedScan::ExclusiveSum(in, hout, 2, -1) == cudaErrorInvalidValue);
  CHECK(tcu::device_reduce_sum(DeviceReduceAlgorithm::grid_single_pass, in, out, 2, 8) == cudaErrorInvalidValue);
  CHECK(tcu::device_inclusive_scan_sum(DeviceScanAlgorithm::grid_three_kernel, in, out, 2, 8) ==
        cudaErrorInvalidValue);
  CHECK(tcu::device_exclusive_scan_sum(DeviceScanAlgorithm::grid_lookback, in, hout, 3, 8) == cudaErrorInvalidValue);
}
