// Chapter 05, GPU tests: every algorithm and API function against the FP64 CPU reference
// (derived tolerances; integer inputs bit for bit, and bit for bit against CUB), over odd sizes,
// segment sizes from 1 to many block tiles, unaligned pointers, both output types, inclusive
// and exclusive, poisoned outputs, a non-default stream, determinism, zero elements. The
// "[large]" cases (ctest runs them, the sanitizers leave them out): a million-element array
// (against FP64, and against CUB bit for bit), 2^19-element segment sets, determinism at 2^24 + 5, and n = 2^28 + 7 and 2^31 + 17 through the API.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "05_block_grid/bench/baselines.cuh"
#include "05_block_grid/bench/measure.hpp"
#include "05_block_grid/tcu_device.cuh"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "common/verify.hpp"

namespace bd = tcu::bench::device;
using tcu::Dist;

namespace {

constexpr std::uint64_t kSeed = 5150;

struct Input {
  std::vector<__half> host;
  tcu::DeviceBuffer<__half> dev;
};
// n elements of `dist`, placed at d_in + offset (offset elements before it: unaligned pointers).
Input make_input(std::int64_t n, Dist dist, std::int64_t offset) {
  Input in;
  in.host.resize(static_cast<std::size_t>(n));
  tcu::fill_host(in.host.data(), in.host.size(), dist, kSeed);
  in.dev = tcu::DeviceBuffer<__half>(static_cast<std::size_t>(n + offset + 1));
  TCU_CUDA_CHECK(cudaMemcpy(in.dev.data() + offset, in.host.data(), in.host.size() * 2, cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy may return before the data has reached the device, and a
  // non-blocking stream (the tests use one) does not wait for the legacy default stream.
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  return in;
}

template <class OutT>
std::vector<OutT> to_host(const OutT* d, std::size_t count) {
  std::vector<OutT> h(count);
  TCU_CUDA_CHECK(cudaMemcpy(h.data(), d, count * sizeof(OutT), cudaMemcpyDeviceToHost));
  return h;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::fmax(m, std::fabs(x));
  return m;
}

// One run of `variant` on ns × s elements from an input at `offset`; checks vs FP64.
void check_variant(const bd::Variant& v, std::int64_t ns, std::int64_t s, Dist dist, std::int64_t offset,
                   bool inclusive = true) {
  const std::int64_t n = ns * s;
  const bool reduce = v.op == bd::Op::reduce || v.op == bd::Op::segmented_reduce;
  Input in = make_input(n, dist, offset);
  std::vector<double> want, mag;
  if (reduce) tcu::reference_segmented_sum(in.host.data(), ns, s, want, mag);
  else tcu::reference_segmented_scan(in.host.data(), ns, s, inclusive, want, mag);
  if (v.out_fp16 && max_abs(want) > 65504.0) return;  // does not fit in fp16: documented, not checked
  if (v.out_fp16 && v.baseline) return;  // CUB's fp16 InclusiveSum accumulates in fp16
  const std::size_t count = static_cast<std::size_t>(reduce ? ns : n);
  const std::size_t elem = v.out_fp16 ? 2 : 4;
  tcu::DeviceBuffer<unsigned char> out(count * elem + 16);
  void* d_out = out.data();
  tcu::poison_device(out.data(), out.bytes());
  TCU_CUDA_CHECK(v.run(in.dev.data() + offset, d_out, ns, s, 0));
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  // Integer inputs: exact in fp32 (sums below 2^24); an fp16 output still rounds above 2048.
  const tcu::Tolerance tol = dist == Dist::integers && !v.out_fp16 ? tcu::exact_tolerance()
                             : reduce              ? bd::reduce_tolerance(s)
                                                   : bd::scan_tolerance(s, v.out_fp16);
  tcu::VerifyResult r;
  if (v.out_fp16) r = tcu::verify(to_host(static_cast<const __half*>(d_out), count).data(), want.data(), mag.data(), count, tol);
  else r = tcu::verify(to_host(static_cast<const float*>(d_out), count).data(), want.data(), mag.data(), count, tol);
  INFO(bd::op_name(v.op) << " " << v.algo << (v.out_fp16 ? " half" : " float") << (inclusive ? " incl" : " excl")
                         << " ns=" << ns << " s=" << s << " offset=" << offset << " dist=" << tcu::dist_name(dist)
                         << ": " << r.summary());
  CHECK(r.pass);
}

// The chapter's variants of an op (baselines included), with inclusive and exclusive forms.
std::vector<bd::Variant> all_forms(bd::Op op, bool out_fp16, std::int64_t ns, std::int64_t s) {
  std::vector<bd::Variant> out;
  for (bd::Variant v : bd::variants_for(op, out_fp16, ns, s)) {
    if (v.algo.rfind("thrust", 0) == 0) continue;  // Thrust allocates per call: slow under the sanitizers
    out.push_back(v);
    if ((op == bd::Op::scan || op == bd::Op::segmented_scan) && !v.baseline) {
      bd::Variant ex = v;
      ex.inclusive = false;
      const auto a = tcu::parse_device_scan_algorithm(v.algo).value();
      ex.run = [a, out_fp16](const __half* in, void* o, std::int64_t n_s, std::int64_t s_s, cudaStream_t st) {
        return out_fp16 ? tcu::device_exclusive_scan_sum(a, in, static_cast<__half*>(o), n_s, s_s, st)
                        : tcu::device_exclusive_scan_sum(a, in, static_cast<float*>(o), n_s, s_s, st);
      };
      out.push_back(ex);
    }
  }
  return out;
}

// Every algorithm and form on whole arrays of n elements (both data sets, aligned and not).
void check_full_arrays(std::initializer_list<std::int64_t> sizes) {
  for (std::int64_t n : sizes) {
    for (Dist dist : {Dist::integers, Dist::uniform}) {
      for (std::int64_t offset : {0, 3}) {
        for (const bd::Variant& v : all_forms(bd::Op::reduce, false, 1, n)) check_variant(v, 1, n, dist, offset);
        for (bool fp16 : {false, true})
          for (const bd::Variant& v : all_forms(bd::Op::scan, fp16, 1, n))
            check_variant(v, 1, n, dist, offset, v.inclusive);
      }
    }
  }
}

// Every algorithm and form on segments of each size, about `elements` elements in all (at least 3
// segments; odd sizes from an odd offset).
void check_segments(std::initializer_list<std::int64_t> sizes, std::int64_t elements) {
  for (std::int64_t s : sizes) {
    const std::int64_t ns = std::max<std::int64_t>(3, elements / s);
    for (Dist dist : {Dist::integers, Dist::normal}) {
      const std::int64_t offset = s % 2 ? 1 : 0;
      for (const bd::Variant& v : all_forms(bd::Op::segmented_reduce, false, ns, s)) check_variant(v, ns, s, dist, offset);
      for (bool fp16 : {false, true})
        for (const bd::Variant& v : all_forms(bd::Op::segmented_scan, fp16, ns, s))
          check_variant(v, ns, s, dist, offset, v.inclusive);
    }
  }
}

}  // namespace

// The sizes are split so that the sanitizers (which leave out "[large]" cases: under racecheck a
// launch over 2^19 elements takes seconds) still see every algorithm, form and size class.
TEST_CASE("full-array reduce and scan: every algorithm vs FP64, odd sizes, unaligned, both outputs") {
  check_full_arrays({1, 2, 255, 256, 4097, 40001});
}

TEST_CASE("[large] full-array reduce and scan past a million elements (many block tiles)") {
  check_full_arrays({1000003});
}

TEST_CASE("segmented reduce and scan: segment sizes from 1 to several block tiles") {
  check_segments({1, 3, 16, 17, 48, 256, 1000, 4096, 16384, 16385, 40000}, std::int64_t(1) << 15);
}

TEST_CASE("[large] segmented reduce and scan: 2^19 elements, segment sizes from 1 to many block tiles") {
  check_segments({1, 3, 16, 17, 48, 256, 1000, 4096, 16384, 16385, 40000, 70000}, std::int64_t(1) << 19);
}

namespace {

// Integer inputs (exact sums): the API's reduce, scans and one-segment scan equal CUB's bit for bit.
void check_equals_cub(std::int64_t n) {
  INFO("n = " << n);
  Input in = make_input(n, Dist::integers, 0);
  tcu::DeviceBuffer<float> a(n), b(n);
  TCU_CUDA_CHECK(tcu::DeviceReduce::Sum(in.dev.data(), a.data(), n));
  TCU_CUDA_CHECK(bd::cub_device_reduce(in.dev.data(), b.data(), n, 0));
  CHECK(to_host(a.data(), 1)[0] == to_host(b.data(), 1)[0]);
  for (bool inclusive : {true, false}) {
    TCU_CUDA_CHECK(inclusive ? tcu::DeviceScan::InclusiveSum(in.dev.data(), a.data(), n)
                             : tcu::DeviceScan::ExclusiveSum(in.dev.data(), a.data(), n));
    TCU_CUDA_CHECK(bd::cub_device_scan(in.dev.data(), b.data(), n, inclusive, 0));
    CHECK(std::memcmp(to_host(a.data(), n).data(), to_host(b.data(), n).data(), n * 4) == 0);
  }
  TCU_CUDA_CHECK(tcu::DeviceSegmentedScan::InclusiveSum(in.dev.data(), a.data(), 1, n));
  TCU_CUDA_CHECK(bd::cub_scan_by_key(in.dev.data(), b.data(), 1, n, 0));
  CHECK(std::memcmp(to_host(a.data(), n).data(), to_host(b.data(), n).data(), n * 4) == 0);
}

}  // namespace

TEST_CASE("integer inputs: the API equals CUB bit for bit (several block tiles)") { check_equals_cub(40001); }

TEST_CASE("[large] integer inputs: the API equals CUB bit for bit past a million elements") {
  check_equals_cub(1000003);
}

// Lesson 3c (a load warp, a look-back warp, the tiles in registers) on integers: equal to CUB bit for
// bit, inclusive and exclusive, fp32 and fp16 results (fp16 ones through the stage, or element by
// element where the output is off a 16-byte line), from every offset of a 16-byte line (heads of
// 0 … 7 elements before the bulk copies), over many block tiles and a short last one; twice on a
// non-blocking stream, the same bits.
template <class OutT>
void check_warp_specialised_equals_cub(cudaStream_t stream) {
  const auto a = tcu::DeviceScanAlgorithm::grid_warp_specialised;
  for (std::int64_t n : {std::int64_t(7), std::int64_t(16391), std::int64_t(3) * 16384 + 8, std::int64_t(200003)}) {
    Input in = make_input(n + 8, Dist::integers, 0);
    tcu::DeviceBuffer<OutT> got(n + 1), again(n + 1), want(n);
    for (std::int64_t offset = 0; offset < 8; offset += (n > 100000 ? 3 : 1)) {
      for (bool inclusive : {true, false}) {
        const std::int64_t out_offset = offset == 1 ? 1 : 0;  // results off their 16-byte line once
        INFO("n = " << n << " offset = " << offset << " out offset = " << out_offset << " "
                    << sizeof(OutT) * 8 << "-bit results" << (inclusive ? " inclusive" : " exclusive"));
        const __half* d_in = in.dev.data() + offset;
        for (tcu::DeviceBuffer<OutT>* o : {&got, &again}) {
          tcu::poison_device(o->data(), o->bytes(), stream);
          OutT* d_out = o->data() + out_offset;
          TCU_CUDA_CHECK(inclusive ? tcu::device_inclusive_scan_sum(a, d_in, d_out, 1, n, stream)
                                   : tcu::device_exclusive_scan_sum(a, d_in, d_out, 1, n, stream));
        }
        TCU_CUDA_CHECK(bd::cub_device_scan(d_in, want.data(), n, inclusive, stream));
        TCU_CUDA_CHECK(cudaStreamSynchronize(stream));
        const std::vector<OutT> g = to_host(got.data() + out_offset, n);
        CHECK(std::memcmp(g.data(), to_host(want.data(), n).data(), n * sizeof(OutT)) == 0);
        CHECK(std::memcmp(g.data(), to_host(again.data() + out_offset, n).data(), n * sizeof(OutT)) == 0);
      }
    }
  }
}

TEST_CASE("grid_warp_specialised: integers equal CUB bit for bit at every head length, two runs the same") {
  cudaStream_t stream;
  TCU_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  check_warp_specialised_equals_cub<float>(stream);
  check_warp_specialised_equals_cub<__half>(stream);
  TCU_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST_CASE("zero elements: success, nothing written") {
  tcu::DeviceBuffer<float> out(4);
  tcu::poison_device(out.data(), out.bytes());
  const __half* in = nullptr;
  CHECK(tcu::DeviceReduce::Sum(in, out.data(), 0) == cudaSuccess);
  CHECK(tcu::DeviceScan::InclusiveSum(in, out.data(), 0) == cudaSuccess);
  CHECK(tcu::DeviceSegmentedScan::ExclusiveSum(in, out.data(), 0, 100) == cudaSuccess);
  CHECK(tcu::DeviceSegmentedReduce::Sum(in, out.data(), 0, 100) == cudaSuccess);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  for (float f : to_host(out.data(), 4)) CHECK(std::isnan(f));
}

TEST_CASE("[large] deterministic: the same input gives the same bits, on a non-default stream too") {
  const std::int64_t n = (std::int64_t(1) << 24) + 5;
  Input in = make_input(n, Dist::normal, 1);
  cudaStream_t stream;
  TCU_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  tcu::DeviceBuffer<float> a(n), b(n);
  for (int rep = 0; rep < 2; ++rep) {
    tcu::DeviceBuffer<float>& o = rep == 0 ? a : b;
    tcu::poison_device(o.data(), o.bytes(), stream);
    TCU_CUDA_CHECK(tcu::DeviceScan::InclusiveSum(in.dev.data() + 1, o.data(), n, stream));
  }
  TCU_CUDA_CHECK(cudaStreamSynchronize(stream));
  CHECK(std::memcmp(to_host(a.data(), n).data(), to_host(b.data(), n).data(), n * 4) == 0);
  std::vector<double> want, mag;
  tcu::reference_segmented_scan(in.host.data(), 1, n, true, want, mag);
  CHECK(tcu::verify(to_host(a.data(), n).data(), want.data(), mag.data(), n, bd::scan_tolerance(n, false)).pass);
  float r1 = 0, r2 = 0;
  for (tcu::DeviceReduceAlgorithm alg : tcu::all_device_reduce_algorithms()) {
    if (!tcu::device_reduce_algorithm_supports(alg, 1, n) || alg == tcu::DeviceReduceAlgorithm::block_reduce) continue;
    TCU_CUDA_CHECK(tcu::device_reduce_sum(alg, in.dev.data() + 1, a.data(), 1, n, stream));
    TCU_CUDA_CHECK(cudaMemcpyAsync(&r1, a.data(), 4, cudaMemcpyDeviceToHost, stream));
    TCU_CUDA_CHECK(tcu::device_reduce_sum(alg, in.dev.data() + 1, a.data(), 1, n, stream));
    TCU_CUDA_CHECK(cudaMemcpyAsync(&r2, a.data(), 4, cudaMemcpyDeviceToHost, stream));
    TCU_CUDA_CHECK(cudaStreamSynchronize(stream));
    INFO(tcu::device_reduce_algorithm_name(alg));
    CHECK(std::memcmp(&r1, &r2, 4) == 0);
  }
  TCU_CUDA_CHECK(cudaStreamDestroy(stream));
}

// Large: the API past 2^28 and past 2^31 elements, integer inputs (exact), the reference
// computed while streaming the output back in pieces (no 2^31-element FP64 arrays).
TEST_CASE("[large] n = 2^28 + 7 and 2^31 + 17: reduce and inclusive scan, fp32, exact" * doctest::skip(false)) {
  for (std::int64_t n : {(std::int64_t(1) << 28) + 7, (std::int64_t(1) << 31) + 17}) {
    std::size_t free_b = 0, total_b = 0;
    TCU_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (free_b < static_cast<std::size_t>(n) * 6 + (std::size_t(1) << 30)) {
      MESSAGE("not enough device memory for n = " << n);
      continue;
    }
    tcu::DeviceBuffer<__half> in(static_cast<std::size_t>(n));
    tcu::fill_device(in.data(), static_cast<std::size_t>(n), Dist::integers, kSeed);
    tcu::DeviceBuffer<float> out(static_cast<std::size_t>(n));
    tcu::poison_device(out.data(), out.bytes());
    TCU_CUDA_CHECK(tcu::DeviceScan::InclusiveSum(in.data(), out.data(), n));
    TCU_CUDA_CHECK(cudaDeviceSynchronize());
    constexpr std::int64_t kPiece = std::int64_t(1) << 24;
    std::vector<float> got(kPiece);
    std::int64_t prefix = 0, bad = 0;
    for (std::int64_t base = 0; base < n; base += kPiece) {
      const std::int64_t len = std::min(kPiece, n - base);
      TCU_CUDA_CHECK(cudaMemcpy(got.data(), out.data() + base, len * 4, cudaMemcpyDeviceToHost));
      for (std::int64_t i = 0; i < len; ++i) {
        prefix += static_cast<std::int64_t>(tcu::sample_value(Dist::integers, kSeed, base + i));
        if (static_cast<double>(got[i]) != static_cast<double>(prefix)) ++bad;
      }
    }
    INFO("n = " << n);
    CHECK(bad == 0);
    TCU_CUDA_CHECK(tcu::DeviceReduce::Sum(in.data(), out.data(), n));
    float sum = 0;
    TCU_CUDA_CHECK(cudaMemcpy(&sum, out.data(), 4, cudaMemcpyDeviceToHost));
    CHECK(static_cast<double>(sum) == static_cast<double>(prefix));
  }
}
