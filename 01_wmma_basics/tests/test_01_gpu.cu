// Chapter 01, GPU tests: every launch function against the FP64 CPU reference (random and
// integer inputs, several seeds, every layout combination, poisoned outputs), the fragment
// maps, the documented PTX layout as the hardware shows it, and the argument checks.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "01_wmma_basics/fragment_map.hpp"
#include "01_wmma_basics/layout_probes.hpp"
#include "01_wmma_basics/product_check.hpp"
#include "01_wmma_basics/wmma_basics.cuh"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/verify.hpp"

namespace wb = tcu::wmma_basics;
using tcu::Layout;
using tcu::NumType;

namespace {

constexpr std::uint64_t kSeeds[] = {1, 2, 20261122};
constexpr tcu::Dist kDists[] = {tcu::Dist::uniform, tcu::Dist::normal, tcu::Dist::integers};

bool device_is_sm80_or_newer() {
  int device = 0, major = 0;
  TCU_CUDA_CHECK(cudaGetDevice(&device));
  TCU_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 8;
}

// Every combination of operand and output layouts, packed, plus padded leading dimensions
// (40 elements: at least the tallest tile, a multiple of 16 bytes for half and float).
std::vector<wb::ProductLayout> all_layouts() {
  std::vector<wb::ProductLayout> out;
  for (Layout la : {Layout::row_major, Layout::col_major})
    for (Layout lb : {Layout::row_major, Layout::col_major})
      for (Layout ld : {Layout::row_major, Layout::col_major}) {
        wb::ProductLayout pl;
        pl.a = la;
        pl.b = lb;
        pl.d = ld;
        out.push_back(pl);
        pl.lda = pl.ldb = pl.ldd = 40;
        out.push_back(pl);
      }
  return out;
}

std::string describe(const wb::ProductLayout& pl) {
  auto name = [](Layout l) { return l == Layout::row_major ? "row" : "col"; };
  return std::string("A ") + name(pl.a) + " ld " + std::to_string(pl.lda) + ", B " + name(pl.b) + " ld " +
         std::to_string(pl.ldb) + ", D " + name(pl.d) + " ld " + std::to_string(pl.ldd);
}

// A launch function against the reference for every distribution, seed and layout.
template <class In, class Out, class Launch, class Adjust>
void check_everywhere(wb::MmaShape s, NumType in, NumType acc, NumType out, Launch&& launch, Adjust&& adjust) {
  for (tcu::Dist dist : kDists)
    for (std::uint64_t seed : kSeeds)
      for (const wb::ProductLayout& pl : all_layouts()) {
        const tcu::Tolerance tol = wb::product_tolerance(s.k, in, acc, out, dist);
        const wb::ProductCheck c = wb::check_product<In, Out>(s, pl, dist, seed, tol, launch, adjust);
        INFO("dist " << tcu::dist_name(dist) << ", seed " << seed << ", " << describe(pl) << ": "
                     << c.result.summary());
        REQUIRE(c.launch == cudaSuccess);
        CHECK(c.result.pass);
        CHECK(c.result.non_finite == 0);  // every output element was written
        if (wb::integer_valued(dist)) CHECK(c.result.max_abs_err == 0.0);  // bit-exact
      }
}

template <class In, class Out, class Launch>
void check_everywhere(wb::MmaShape s, NumType in, NumType acc, NumType out, Launch&& launch) {
  check_everywhere<In, Out>(s, in, acc, out, std::forward<Launch>(launch), [](wb::ProductReference&) {});
}

}  // namespace

TEST_CASE("16x16x16, fp16 operands, fp32 accumulator") {
  check_everywhere<__half, float>(wb::kShape16x16x16, NumType::fp16, NumType::fp32, NumType::fp32,
                                  [](auto a, auto b, auto d) { return wb::mma_16x16x16_f16_f32acc(a, b, d); });
}

TEST_CASE("16x16x16, fp16 operands, fp16 accumulator") {
  check_everywhere<__half, __half>(wb::kShape16x16x16, NumType::fp16, NumType::fp16, NumType::fp16,
                                   [](auto a, auto b, auto d) { return wb::mma_16x16x16_f16_f16acc(a, b, d); });
}

TEST_CASE("the other fp16 shapes: 32x8x16 and 8x32x16") {
  check_everywhere<__half, float>(wb::kShape32x8x16, NumType::fp16, NumType::fp32, NumType::fp32,
                                  [](auto a, auto b, auto d) { return wb::mma_32x8x16_f16_f32acc(a, b, d); });
  check_everywhere<__half, float>(wb::kShape8x32x16, NumType::fp16, NumType::fp32, NumType::fp32,
                                  [](auto a, auto b, auto d) { return wb::mma_8x32x16_f16_f32acc(a, b, d); });
}

TEST_CASE("bf16 and tf32 (sm_80+), or a clear refusal") {
  auto bf16 = [](auto a, auto b, auto d) { return wb::mma_16x16x16_bf16_f32acc(a, b, d); };
  auto tf32 = [](auto a, auto b, auto d) { return wb::mma_16x16x8_tf32_f32acc(a, b, d); };
  if (!device_is_sm80_or_newer()) {
    MESSAGE("skipped the bf16 and tf32 products: this GPU is older than sm_80 (checking the refusal instead)");
    const wb::ProductCheck b = wb::check_product<__nv_bfloat16, float>(wb::kShape16x16x16, {}, tcu::Dist::integers, 1,
                                                                       tcu::exact_tolerance(), bf16);
    CHECK(b.launch == cudaErrorNotSupported);
    const wb::ProductCheck t =
        wb::check_product<float, float>(wb::kShape16x16x8, {}, tcu::Dist::integers, 1, tcu::exact_tolerance(), tf32);
    CHECK(t.launch == cudaErrorNotSupported);
    return;
  }
  check_everywhere<__nv_bfloat16, float>(wb::kShape16x16x16, NumType::bf16, NumType::fp32, NumType::fp32, bf16);
  check_everywhere<float, float>(wb::kShape16x16x8, NumType::tf32, NumType::fp32, NumType::fp32, tf32);
}

TEST_CASE("fill_fragment and an element-wise epilogue: relu(alpha * (A*B + beta))") {
  struct Epilogue {
    float alpha, beta;
  };
  for (const Epilogue e : {Epilogue{0.5f, -4.0f}, Epilogue{-2.0f, 1.0f}, Epilogue{1.0f, 0.0f}}) {
    const float alpha = e.alpha, beta = e.beta;
    INFO("alpha " << alpha << ", beta " << beta);
    check_everywhere<__half, float>(
        wb::kShape16x16x16, NumType::fp16, NumType::fp32, NumType::fp32,
        [alpha, beta](auto a, auto b, auto d) { return wb::mma_16x16x16_relu_epilogue(a, b, alpha, beta, d); },
        [alpha, beta](wb::ProductReference& r) {
          for (std::size_t i = 0; i < r.value.size(); ++i) {
            r.value[i] = std::fmax(double(alpha) * (r.value[i] + beta), 0.0);
            r.magnitude[i] = std::fabs(alpha) * (r.magnitude[i] + std::fabs(beta));
          }
        });
  }
}

TEST_CASE("constant-matrix products P*X, X*Pt, X*U, L*X, X*1") {
  constexpr wb::MmaShape s = wb::kShape16x16x16;
  for (wb::ConstantProduct op : wb::kAllConstantProducts)
    for (Layout xl : {Layout::row_major, Layout::col_major})
      for (tcu::Dist dist : kDists)
        for (std::uint64_t seed : kSeeds) {
          INFO(wb::constant_product_name(op) << ", X " << (xl == Layout::row_major ? "row" : "col") << ", dist "
                                             << tcu::dist_name(dist) << ", seed " << seed);
          const wb::HostDeviceTile<__half> x = wb::make_input<__half>(256, dist, seed, 0);
          tcu::DeviceBuffer<float> d = wb::poisoned_output<float>(256);
          REQUIRE(wb::constant_product(op, wb::tile(x.device.data(), xl), wb::tile(d.data())) == cudaSuccess);
          TCU_CUDA_CHECK(cudaDeviceSynchronize());
          std::vector<float> got(256);
          d.copy_to_host(got.data(), got.size());
          const std::vector<__half> c = wb::make_constant_matrix<__half>(wb::constant_of(op));
          const wb::ProductReference want =
              wb::constant_on_left(op)
                  ? wb::reference_product(c.data(), Layout::row_major, 0, x.host.data(), xl, 0, s)
                  : wb::reference_product(x.host.data(), xl, 0, c.data(), Layout::row_major, 0, s);
          const tcu::VerifyResult r =
              wb::verify_tile(got, Layout::row_major, 0, want, s,
                              wb::product_tolerance(s.k, NumType::fp16, NumType::fp32, NumType::fp32, dist));
          INFO(r.summary());
          CHECK(r.pass);
          if (wb::integer_valued(dist)) CHECK(r.max_abs_err == 0.0);
        }
}

TEST_CASE("every WMMA fragment kind reaches every element of its tile") {
  for (wb::FragmentKind kind : wb::kAllFragmentKinds) {
    INFO(wb::fragment_kind_name(kind));
    const wb::ProbedMap p = wb::read_wmma_fragment_map(kind);
    REQUIRE(p.status == cudaSuccess);
    const wb::FragmentMapSummary s = wb::summarize(p.map);
    CHECK(s.uncovered_elements == 0);
    CHECK(s.min_lanes_per_element >= 1);
    CHECK(s.max_slots_used >= 8);  // 256 elements over 32 lanes: at least 8 slots each
    // What a slot holds is unspecified, so a slot that is no element id is reported, not failed.
    if (s.undecodable_slots != 0) MESSAGE(s.undecodable_slots << " slots hold no element id");
    // The same probe twice gives the same map (it is a property of the GPU, not of the run).
    CHECK(wb::count_differences(p.map, wb::read_wmma_fragment_map(kind).map) == 0);
  }
}

TEST_CASE("the hardware's m16n8k16 layout is the documented one (sm_80+)") {
  if (!device_is_sm80_or_newer()) {
    MESSAGE("skipped: mma.m16n8k16 with f16 needs sm_80 (checking the refusal instead)");
    CHECK(wb::read_ptx_observed_map(wb::PtxOperand::a).status == cudaErrorNotSupported);
    return;
  }
  for (wb::PtxOperand op : {wb::PtxOperand::a, wb::PtxOperand::b, wb::PtxOperand::c}) {
    INFO(wb::ptx_operand_name(op));
    const wb::ProbedMap seen = wb::read_ptx_observed_map(op);
    REQUIRE(seen.status == cudaSuccess);
    CHECK(wb::count_differences(seen.map, wb::documented_ptx_map(op)) == 0);
  }
}

TEST_CASE("PTX mma.m16n8k16 product, registers filled by the documented layout (sm_80+)") {
  auto ptx = [](auto a, auto b, auto d) { return wb::ptx_mma_16x16x16_f16_f32acc(a, b, d); };
  if (!device_is_sm80_or_newer()) {
    MESSAGE("skipped: mma.m16n8k16 with f16 needs sm_80 (checking the refusal instead)");
    CHECK(
        wb::check_product<__half, float>(wb::kShape16x16x16, {}, tcu::Dist::integers, 1, tcu::exact_tolerance(), ptx)
            .launch == cudaErrorNotSupported);
    return;
  }
  check_everywhere<__half, float>(wb::kShape16x16x16, NumType::fp16, NumType::fp32, NumType::fp32, ptx);
}

TEST_CASE("broken WMMA rules are refused with cudaErrorInvalidValue, and nothing is launched") {
  const wb::HostDeviceTile<__half> a = wb::make_input<__half>(16 * 24 + 16, tcu::Dist::integers, 5, 0);
  const wb::HostDeviceTile<__half> b = wb::make_input<__half>(256, tcu::Dist::integers, 5, 1000);
  const __half* base = a.device.data();
  const auto b_ok = wb::tile(b.device.data());
  struct Case {
    const char* name;
    wb::Tile<const __half> a;
  };
  const Case cases[] = {
      {"A + 2 bytes", wb::tile(base + 1)},
      {"A + 16 bytes", wb::tile(base + 8)},
      {"lda = 20", wb::tile(base, Layout::row_major, 20)},
      {"tile at column 8 of a 24-wide matrix", wb::tile(base + 8, Layout::row_major, 24)},
      {"null A", wb::tile<const __half>(nullptr)},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    tcu::DeviceBuffer<float> d = wb::poisoned_output<float>(256);
    tcu::DeviceBuffer<__half> dh = wb::poisoned_output<__half>(256);
    CHECK(wb::mma_16x16x16_f16_f32acc(c.a, b_ok, wb::tile(d.data())) == cudaErrorInvalidValue);
    CHECK(wb::mma_16x16x16_f16_f32acc(b_ok, c.a, wb::tile(d.data())) == cudaErrorInvalidValue);
    CHECK(wb::mma_16x16x16_f16_f16acc(c.a, b_ok, wb::tile(dh.data())) == cudaErrorInvalidValue);
    CHECK(wb::mma_16x16x16_relu_epilogue(c.a, b_ok, 1.0f, 0.0f, wb::tile(d.data())) == cudaErrorInvalidValue);
    CHECK(wb::constant_product(wb::ConstantProduct::L_X, c.a, wb::tile(d.data())) == cudaErrorInvalidValue);
    TCU_CUDA_CHECK(cudaDeviceSynchronize());  // the context is healthy: nothing faulted
    CHECK(wb::still_poisoned(d));
    CHECK(wb::still_poisoned(dh));
  }
  // A misaligned or badly strided output is refused as well (store_matrix_sync has the same rules).
  tcu::DeviceBuffer<float> d = wb::poisoned_output<float>(512);
  CHECK(wb::mma_16x16x16_f16_f32acc(wb::tile(base), b_ok, wb::tile(d.data() + 4)) == cudaErrorInvalidValue);
  CHECK(wb::mma_16x16x16_f16_f32acc(wb::tile(base), b_ok, wb::tile(d.data(), Layout::row_major, 18)) ==
        cudaErrorInvalidValue);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(wb::still_poisoned(d));
}

TEST_CASE("a legal sub-tile: rows 16..31 of a 32x24 matrix (offset 768 bytes, ld 24)") {
  constexpr wb::MmaShape s = wb::kShape16x16x16;
  constexpr std::size_t kWide = 24, kOffset = 16 * kWide;  // 768 bytes: a multiple of 32
  const wb::HostDeviceTile<__half> a = wb::make_input<__half>(32 * kWide, tcu::Dist::integers, 9, 0);
  const wb::HostDeviceTile<__half> b = wb::make_input<__half>(256, tcu::Dist::integers, 9, 32 * kWide);
  tcu::DeviceBuffer<float> d = wb::poisoned_output<float>(256);
  REQUIRE(wb::mma_16x16x16_f16_f32acc(wb::tile(a.device.data() + kOffset, Layout::row_major, kWide),
                                      wb::tile(b.device.data()), wb::tile(d.data())) == cudaSuccess);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> got(256);
  d.copy_to_host(got.data(), got.size());
  const wb::ProductReference want = wb::reference_product(a.host.data() + kOffset, Layout::row_major, kWide,
                                                          b.host.data(), Layout::row_major, 0, s);
  const tcu::VerifyResult r = wb::verify_tile(got, Layout::row_major, 0, want, s, tcu::exact_tolerance());
  INFO(r.summary());
  CHECK(r.pass);
}
