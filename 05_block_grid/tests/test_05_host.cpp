// Chapter 05, host tests: the name tables, the shapes each algorithm takes, the automatic
// choice, and the argument checks (they return before anything touches a GPU).
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

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
  // from 2^23 on, two passes over chunks in waves
  CHECK(tcu::choose_device_reduce_algorithm(1, (1 << 23) - 1) == DeviceReduceAlgorithm::grid_single_pass);
  CHECK(tcu::choose_device_reduce_algorithm(1, 1 << 23) == DeviceReduceAlgorithm::grid_two_pass);
  CHECK(tcu::choose_device_reduce_algorithm(1, std::int64_t(1) << 31) == DeviceReduceAlgorithm::grid_two_pass);
  // Long segments: one block per segment from 1.5 segments per SM on, else the look-back (without
  // a GPU the SM count is 1).
  const std::int64_t from = (3 * static_cast<std::int64_t>(tcu::tc::sm_count()) + 1) / 2;
  CHECK(tcu::choose_device_scan_algorithm(from, 1 << 22, true) == DeviceScanAlgorithm::block_scan);
  CHECK(tcu::choose_device_scan_algorithm(4 * from, 1 << 18, false) == DeviceScanAlgorithm::block_scan);
  if (from - 1 >= 2)
    CHECK(tcu::choose_device_scan_algorithm(from - 1, 1 << 22, true) == DeviceScanAlgorithm::segmented_lookback);
  CHECK(tcu::choose_device_scan_algorithm(from, 1000, true) != DeviceScanAlgorithm::block_scan);
  // Odd sizes (not a multiple of 8; or, below the warp level's range, not a power of two): the
  // walk of chapters 03/04 (warp level) where it takes them, 17 … 2^16 (from 512 or 1024 on with
  // 4096 segments or more), else the ragged walk; powers of two and sizes up to 16 keep theirs.
  const bool w = tcu::device_has_warp_level();
  for (std::int64_t s : {17, 24, 100, 255, 257, 12345}) {
    CAPTURE(s);
    CHECK(tcu::choose_device_reduce_algorithm(1 << 12, s) ==
          (w ? DeviceReduceAlgorithm::warp_level : DeviceReduceAlgorithm::ragged));
    CHECK(tcu::choose_device_scan_algorithm(1 << 12, s, true) ==
          (w ? DeviceScanAlgorithm::warp_level : DeviceScanAlgorithm::ragged));
    CHECK(tcu::choose_device_scan_algorithm(1 << 12, s, false) != DeviceScanAlgorithm::ragged);
  }
  CHECK(tcu::choose_device_reduce_algorithm(4095, 12345) == DeviceReduceAlgorithm::ragged);  // few: the ragged walk
  CHECK(tcu::choose_device_scan_algorithm(4095, 12345, true) == DeviceScanAlgorithm::ragged);
  CHECK(tcu::choose_device_reduce_algorithm(1 << 12, (1 << 20) + 1) == DeviceReduceAlgorithm::ragged);
  CHECK(tcu::choose_device_scan_algorithm(1 << 12, (1 << 20) + 1, true) == DeviceScanAlgorithm::ragged);
  CHECK(tcu::choose_device_scan_algorithm(1 << 12, 1000, true) ==
        (w ? DeviceScanAlgorithm::warp_level : DeviceScanAlgorithm::ragged));
  for (std::int64_t s : {5, 16, 32, 256, 512, 1024, 4096, 1 << 16}) {
    CHECK(tcu::choose_device_reduce_algorithm(1 << 12, s) != DeviceReduceAlgorithm::ragged);
    CHECK(tcu::choose_device_scan_algorithm(1 << 12, s, true) != DeviceScanAlgorithm::ragged);
  }
  CHECK(tcu::choose_device_reduce_algorithm(1 << 12, 1000) != DeviceReduceAlgorithm::ragged);
  CHECK(tcu::choose_device_reduce_algorithm(1, 17) != DeviceReduceAlgorithm::ragged);
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

// Lesson 3c's tile scan in registers (common/tensor_core/register_scan.cuh), modelled lane by lane
// on the host: mma.sync m16n8k16's layout (lane 4g + t: rows g and g + 8, columns 8h + 2t and
// 8h + 2t + 1 of n8 block h), A·U in the lanes, the row offsets by the shuffle scan of the row
// totals held by lanes 4g + 3, the carry, and the exclusive shift through the same shuffles. On
// integers every sum is exact, so the model must equal a direct scan element for element.
namespace {
struct TileModel {
  double v[32][2][4];  // lane, n8 block h, accumulator slot j (j / 2: row g or g + 8; j % 2: column)
};
int row_of(int lane, int j) { return lane / 4 + 8 * (j / 2); }
int col_of(int lane, int h, int j) { return 8 * h + 2 * (lane % 4) + j % 2; }
double shfl(const double (&x)[32], int src, int lane) { return src >= 0 && src < 32 ? x[src] : x[lane]; }

std::vector<double> model_tile_scan(const std::vector<double>& a, double carry, bool inclusive) {
  TileModel m{};
  double lo[32], hi[32];
  for (int l = 0; l < 32; ++l)
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < 4; ++j) {  // A·U: the row's scan up to the column
        double s = 0;
        for (int k = 0; k <= col_of(l, h, j); ++k) s += a[row_of(l, j) * 16 + k];
        m.v[l][h][j] = s;
      }
  for (int l = 0; l < 32; ++l) {  // the row totals of rows g and g + 8, from lane 4g + 3
    lo[l] = m.v[(l / 4) * 4 + 3][1][1];
    hi[l] = m.v[(l / 4) * 4 + 3][1][3];
  }
  for (int d = 1; d < 8; d *= 2) {  // inclusive scans over g: shuffles up by 4d
    double ol[32], oh[32];
    for (int l = 0; l < 32; ++l) ol[l] = shfl(lo, l - 4 * d, l), oh[l] = shfl(hi, l - 4 * d, l);
    for (int l = 0; l < 32; ++l)
      if (l / 4 >= d) lo[l] = ol[l] + lo[l], hi[l] = oh[l] + hi[l];
  }
  std::vector<double> out(256);
  double v[32][2][4];
  for (int l = 0; l < 32; ++l) {
    const double top = lo[28], ex_lo = l / 4 ? shfl(lo, l - 4, l) : 0, ex_hi = l / 4 ? shfl(hi, l - 4, l) : 0;
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < 4; ++j) v[l][h][j] = (m.v[l][h][j] + (j / 2 ? top + ex_hi : ex_lo)) + carry;
  }
  double x[32][2][4];
  for (int l = 0; l < 32; ++l)
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < 4; ++j) x[l][h][j] = v[l][h][j];
  if (!inclusive) {
    double v01[32], v03[32], v11[32], v13[32];
    for (int l = 0; l < 32; ++l) v01[l] = v[l][0][1], v03[l] = v[l][0][3], v11[l] = v[l][1][1], v13[l] = v[l][1][3];
    for (int l = 0; l < 32; ++l) {
      const int g = l / 4, t = l % 4;
      const double a1 = shfl(v01, l - 1, l), a3 = shfl(v03, l - 1, l), b1 = shfl(v11, l - 1, l),
                   b3 = shfl(v13, l - 1, l), c1 = shfl(v01, l + 3, l), c3 = shfl(v03, l + 3, l), row7 = v11[31];
      x[l][0][1] = v[l][0][0], x[l][0][3] = v[l][0][2], x[l][1][1] = v[l][1][0], x[l][1][3] = v[l][1][2];
      x[l][0][0] = t > 0 ? a1 : g > 0 ? b1 : carry;
      x[l][0][2] = t > 0 ? a3 : g > 0 ? b3 : row7;
      x[l][1][0] = t > 0 ? b1 : c1;
      x[l][1][2] = t > 0 ? b3 : c3;
    }
  }
  for (int l = 0; l < 32; ++l)
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < 4; ++j) out[row_of(l, j) * 16 + col_of(l, h, j)] = x[l][h][j];
  return out;
}
}  // namespace

TEST_CASE("lesson 3c: the tile scan in registers, modelled lane by lane, equals a direct scan") {
  std::uint32_t state = 12345u;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> a(256);
    for (double& e : a) {
      state = state * 1664525u + 1013904223u;
      e = static_cast<double>(static_cast<int>(state >> 24) % 9 - 4);  // integers in [-4, 4]
    }
    const double carry = trial * 7.0 - 30.0;
    for (bool inclusive : {true, false}) {
      const std::vector<double> got = model_tile_scan(a, carry, inclusive);
      double run = carry;
      for (int e = 0; e < 256; ++e) {
        const double want = inclusive ? run + a[e] : run;
        run += a[e];
        INFO("trial " << trial << (inclusive ? " inclusive" : " exclusive") << " element " << e);
        REQUIRE(got[e] == want);
      }
    }
  }
}
