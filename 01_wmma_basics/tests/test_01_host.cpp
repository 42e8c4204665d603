// Chapter 01, host tests (no GPU needed): the constant matrices and what multiplying by them
// does, the documented PTX m16n8k16 layout, the fragment-map helpers, the tolerances, and the
// argument checks the launch functions make before touching the GPU.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "01_wmma_basics/constant_matrices.hpp"
#include "01_wmma_basics/fragment_map.hpp"
#include "01_wmma_basics/product_check.hpp"
#include "01_wmma_basics/ptx_m16n8k16_layout.hpp"
#include "01_wmma_basics/wmma_basics.cuh"
#include "common/data.cuh"
#include "common/reference.hpp"
#include "common/testing/compare.hpp"

namespace wb = tcu::wmma_basics;
using tcu::testing::check_elements;

namespace {

constexpr int kN = wb::kConstantTile;
constexpr std::size_t kCount = static_cast<std::size_t>(kN) * kN;

double at(const std::vector<double>& m, int r, int c) { return m[static_cast<std::size_t>(r) * kN + c]; }

// A 16x16 row-major test matrix: integers (exact sums, exact comparisons) or uniform values.
std::vector<double> test_matrix(tcu::Dist dist, std::uint64_t seed) {
  std::vector<double> a(kCount);
  tcu::fill_host(a.data(), a.size(), dist, seed);
  return a;
}

std::vector<double> transpose(const std::vector<double>& m) {
  std::vector<double> t(kCount);
  for (int r = 0; r < kN; ++r)
    for (int c = 0; c < kN; ++c) t[static_cast<std::size_t>(c) * kN + r] = at(m, r, c);
  return t;
}

}  // namespace

TEST_CASE("constant matrices have the entries docs/algorithms.md lists") {
  using wb::ConstantMatrix;
  const auto P = wb::make_constant_matrix<float>(ConstantMatrix::P);
  const auto Pt = wb::make_constant_matrix<float>(ConstantMatrix::Pt);
  const auto U = wb::make_constant_matrix<float>(ConstantMatrix::U);
  const auto L = wb::make_constant_matrix<float>(ConstantMatrix::L);
  const auto ones = wb::make_constant_matrix<__half>(ConstantMatrix::ones);
  // The pictures, entry by entry: P row 0, Pᵀ column 0, U on and above the diagonal, L
  // strictly below it (and, with rows per segment, only inside each segment's diagonal block).
  std::vector<float> want_p(kCount), want_pt(kCount), want_u(kCount), want_l(kCount), want_ones(kCount, 1.0f);
  std::vector<float> want_l4(kCount), want_l5(kCount), ones_f(kCount);
  for (int r = 0; r < kN; ++r)
    for (int c = 0; c < kN; ++c) {
      const std::size_t i = static_cast<std::size_t>(r) * kN + c;
      want_p[i] = r == 0 ? 1.0f : 0.0f;
      want_pt[i] = c == 0 ? 1.0f : 0.0f;
      want_u[i] = r <= c ? 1.0f : 0.0f;  // U[k][j] = 1 iff k <= j
      want_l[i] = c < r ? 1.0f : 0.0f;   // L[i][k] = 1 iff k < i
      want_l4[i] = c < r && r / 4 == c / 4 ? 1.0f : 0.0f;  // segments of 4 rows: 4 blocks
      want_l5[i] = c < r && r / 5 == c / 5 ? 1.0f : 0.0f;  // 5, 5, 5 and a last row alone
      ones_f[i] = __half2float(ones[i]);
    }
  check_elements(P, want_p, "P");
  check_elements(Pt, want_pt, "Pt");
  check_elements(U, want_u, "U");
  check_elements(L, want_l, "L (param 0: one segment)");
  check_elements(wb::make_constant_matrix<float>(ConstantMatrix::L, 16), want_l, "L with 16 rows per segment");
  check_elements(wb::make_constant_matrix<float>(ConstantMatrix::L, 4), want_l4, "L with 4 rows per segment");
  check_elements(wb::make_constant_matrix<float>(ConstantMatrix::L, 5), want_l5, "L with 5 rows per segment");
  check_elements(wb::make_constant_matrix<float>(ConstantMatrix::L, 1), std::vector<float>(kCount, 0.0f),
                 "L with 1 row per segment (no entry below the diagonal in the same segment)");
  check_elements(ones_f, want_ones, "1");
  // Spot checks against the pictures: U is upper triangular with its diagonal, L strictly lower.
  CHECK(wb::constant_entry_is_one(ConstantMatrix::U, 0, 15));
  CHECK(wb::constant_entry_is_one(ConstantMatrix::U, 7, 7));
  CHECK_FALSE(wb::constant_entry_is_one(ConstantMatrix::U, 15, 0));
  CHECK(wb::constant_entry_is_one(ConstantMatrix::L, 15, 0));
  CHECK_FALSE(wb::constant_entry_is_one(ConstantMatrix::L, 7, 7));
}

TEST_CASE("P*A puts the column sums in row 0, A*Pt the row sums in column 0") {
  for (tcu::Dist dist : {tcu::Dist::integers, tcu::Dist::uniform}) {
    const auto A = test_matrix(dist, 7);
    const auto PA = wb::host_matmul(wb::make_constant_matrix<double>(wb::ConstantMatrix::P), A);
    const auto APt = wb::host_matmul(A, wb::make_constant_matrix<double>(wb::ConstantMatrix::Pt));
    std::vector<double> row_sums, abs_sums;
    tcu::reference_segmented_sum(A.data(), kN, kN, row_sums, abs_sums);  // row-major: segment = row
    std::vector<double> col_sums;
    const auto At = transpose(A);
    tcu::reference_segmented_sum(At.data(), kN, kN, col_sums, abs_sums);
    std::vector<double> want_pa(kCount, 0.0), want_apt(kCount, 0.0);
    for (int i = 0; i < kN; ++i) {
      want_pa[static_cast<std::size_t>(i)] = col_sums[i];               // row 0
      want_apt[static_cast<std::size_t>(i) * kN] = row_sums[i];         // column 0
    }
    check_elements(PA, want_pa, "P*A", 1e-9);
    check_elements(APt, want_apt, "A*Pt", 1e-9);
  }
}

TEST_CASE("A*U is the inclusive scan of every row; L*A the exclusive scan of every column") {
  for (tcu::Dist dist : {tcu::Dist::integers, tcu::Dist::uniform}) {
    const auto A = test_matrix(dist, 11);
    const auto AU = wb::host_matmul(A, wb::make_constant_matrix<double>(wb::ConstantMatrix::U));
    const auto LA = wb::host_matmul(wb::make_constant_matrix<double>(wb::ConstantMatrix::L), A);
    std::vector<double> row_scan, abs_out;
    tcu::reference_segmented_scan(A.data(), kN, kN, /*inclusive=*/true, row_scan, abs_out);
    std::vector<double> col_scan_t;
    const auto At = transpose(A);
    tcu::reference_segmented_scan(At.data(), kN, kN, /*inclusive=*/false, col_scan_t, abs_out);
    const auto col_scan = transpose(col_scan_t);
    check_elements(AU, row_scan, "A*U (want every row scanned, inclusive)", 1e-9);
    check_elements(LA, col_scan, "L*A (want every column scanned, exclusive)", 1e-9);
  }
}

TEST_CASE("the paper's textual U and L (the erratum) would not give a scan") {
  // Dakkak §5's text: U[r][c] = 1 if r >= c, L[r][c] = 1 if r < c — the transposes.
  std::vector<double> text_U(kCount), text_L(kCount);
  for (int r = 0; r < kN; ++r)
    for (int c = 0; c < kN; ++c) {
      text_U[static_cast<std::size_t>(r) * kN + c] = r >= c ? 1.0 : 0.0;
      text_L[static_cast<std::size_t>(r) * kN + c] = r < c ? 1.0 : 0.0;
    }
  CHECK(text_U == transpose(wb::make_constant_matrix<double>(wb::ConstantMatrix::U)));
  CHECK(text_L == transpose(wb::make_constant_matrix<double>(wb::ConstantMatrix::L)));
  const auto A = test_matrix(tcu::Dist::ones, 0);
  const auto AU = wb::host_matmul(A, text_U);
  CHECK(at(AU, 0, 0) == 16.0);  // a scan's first element would be A[0][0] = 1
}

TEST_CASE("X*1 broadcasts every row sum along its row") {
  const auto X = test_matrix(tcu::Dist::integers, 3);
  const auto X1 = wb::host_matmul(X, wb::make_constant_matrix<double>(wb::ConstantMatrix::ones));
  std::vector<double> row_sums, abs_sums;
  tcu::reference_segmented_sum(X.data(), kN, kN, row_sums, abs_sums);
  for (int r = 0; r < kN; ++r)
    for (int c = 0; c < kN; ++c) CHECK_MESSAGE(at(X1, r, c) == row_sums[r], "X*1 at row " << r << ", column " << c);
}

TEST_CASE("the documented PTX m16n8k16 layout holds every element exactly once") {
  using wb::PtxOperand;
  for (PtxOperand op : {PtxOperand::a, PtxOperand::b, PtxOperand::c}) {
    CAPTURE(wb::ptx_operand_name(op));
    const wb::FragmentMap m = wb::documented_ptx_map(op);
    std::multiset<int> held;
    for (int lane = 0; lane < wb::kWarpLanes; ++lane)
      for (int i = 0; i < m.slots_per_lane; ++i) {
        const wb::RowCol rc = wb::ptx_position(op, lane, i);
        REQUIRE(rc.row >= 0);
        REQUIRE(rc.row < wb::ptx_rows(op));
        REQUIRE(rc.col >= 0);
        REQUIRE(rc.col < wb::ptx_cols(op));
        held.insert(rc.row * wb::kElementIdStride + rc.col);
      }
    CHECK(held.size() == static_cast<std::size_t>(wb::ptx_rows(op) * wb::ptx_cols(op)));
    for (int id : held) CHECK(held.count(id) == 1);
    const wb::FragmentMapSummary s = wb::summarize(m);
    CHECK(s.covers_every_element());
    CHECK(s.min_lanes_per_element == 1);
    CHECK(s.max_lanes_per_element == 1);
  }
}

TEST_CASE("the documented PTX layout, spot checks against the ISA's figures") {
  // Lane 0: groupID 0, threadID_in_group 0.
  CHECK(wb::ptx_a_position(0, 0).row == 0);
  CHECK(wb::ptx_a_position(0, 1).col == 1);
  CHECK(wb::ptx_a_position(0, 2).row == 8);
  CHECK(wb::ptx_a_position(0, 4).col == 8);
  CHECK(wb::ptx_a_position(0, 7).row == 8);
  CHECK(wb::ptx_a_position(0, 7).col == 9);
  // Lane 5: groupID 1, threadID_in_group 1.
  CHECK(wb::ptx_a_position(5, 0).row == 1);
  CHECK(wb::ptx_a_position(5, 0).col == 2);
  CHECK(wb::ptx_b_position(5, 0).row == 2);
  CHECK(wb::ptx_b_position(5, 0).col == 1);
  CHECK(wb::ptx_b_position(5, 3).row == 11);
  // Lane 31: groupID 7, threadID_in_group 3.
  CHECK(wb::ptx_c_position(31, 0).row == 7);
  CHECK(wb::ptx_c_position(31, 0).col == 6);
  CHECK(wb::ptx_c_position(31, 3).row == 15);
  CHECK(wb::ptx_c_position(31, 3).col == 7);
}

TEST_CASE("fragment-map helpers count holders and spot holes") {
  wb::FragmentMap m;
  m.rows = 16;
  m.cols = 16;
  m.slots_per_lane = 16;
  m.slot_element.assign(static_cast<std::size_t>(wb::kWarpLanes) * 16, wb::kUnusedSlot);
  // Every element in two lanes: lane L holds elements 8L..8L+7 (mod 256) twice over the warp.
  for (int lane = 0; lane < wb::kWarpLanes; ++lane)
    for (int i = 0; i < 16; ++i) m.slot_element[static_cast<std::size_t>(lane) * 16 + i] = (lane * 8 + i) % 256;
  wb::FragmentMapSummary s = wb::summarize(m);
  CHECK(s.covers_every_element());
  CHECK(s.min_lanes_per_element == 2);
  CHECK(s.max_lanes_per_element == 2);
  CHECK(s.max_slots_used == 16);
  CHECK(wb::render_owner_grid(m).find("--") == std::string::npos);

  m.slot_element[5] = wb::kUndecodableSlot;  // lane 0, slot 5: element 5 loses one holder
  s = wb::summarize(m);
  CHECK(s.undecodable_slots == 1);
  CHECK(s.covers_every_element());  // element 5 still reaches lane 31 (slot 13)
  CHECK(s.min_lanes_per_element == 1);
  CHECK(wb::render_owner_grid(m).find('*') != std::string::npos);  // now shared unevenly

  for (std::size_t i = 0; i < m.slot_element.size(); ++i)
    if (m.slot_element[i] == 0) m.slot_element[i] = wb::kUnusedSlot;  // nobody holds (0, 0)
  s = wb::summarize(m);
  CHECK(s.uncovered_elements == 1);
  CHECK_FALSE(s.covers_every_element());
  CHECK(wb::render_owner_grid(m).find("--") != std::string::npos);

  const wb::FragmentMap c_map = wb::documented_ptx_map(wb::PtxOperand::c);
  CHECK(wb::count_differences(c_map, c_map) == 0);
  CHECK(wb::count_differences(c_map, wb::documented_ptx_map(wb::PtxOperand::b)) > 0);
}

TEST_CASE("tile extents and leading dimensions") {
  using tcu::Layout;
  CHECK(wb::effective_ld(Layout::row_major, 0, 32, 8) == 8);
  CHECK(wb::effective_ld(Layout::col_major, 0, 32, 8) == 32);
  CHECK(wb::effective_ld(Layout::row_major, 24, 16, 16) == 24);
  CHECK(wb::tile_span(Layout::row_major, 0, 16, 16) == 256);
  CHECK(wb::tile_span(Layout::row_major, 24, 16, 16) == 15 * 24 + 16);
  CHECK(wb::tile_span(Layout::col_major, 0, 8, 32) == 256);
}

TEST_CASE("tolerances: derived from the types, bit-exact for integer inputs") {
  using tcu::NumType;
  const tcu::Tolerance exact =
      wb::product_tolerance(16, NumType::fp16, NumType::fp32, NumType::fp32, tcu::Dist::integers);
  CHECK(exact.exact());
  CHECK(wb::product_tolerance(16, NumType::fp16, NumType::fp16, NumType::fp16, tcu::Dist::ones).exact());
  const tcu::Tolerance f32 =
      wb::product_tolerance(16, NumType::fp16, NumType::fp32, NumType::fp32, tcu::Dist::uniform);
  CHECK(f32.rel_to_magnitude == doctest::Approx(2.0 * 16 * std::ldexp(1.0, -24)));
  const tcu::Tolerance f16 =
      wb::product_tolerance(16, NumType::fp16, NumType::fp16, NumType::fp16, tcu::Dist::normal);
  CHECK(f16.rel_to_magnitude == doctest::Approx(2.0 * 16 * std::ldexp(1.0, -11)));
  const tcu::Tolerance tf32 =
      wb::product_tolerance(8, NumType::tf32, NumType::fp32, NumType::fp32, tcu::Dist::uniform);
  CHECK(tf32.rel_to_magnitude == doctest::Approx(2.0 * 8 * std::ldexp(1.0, -24) + 4 * std::ldexp(1.0, -11)));
}

TEST_CASE("merging two verification results keeps the worst of both") {
  tcu::VerifyResult a, b;
  a.count = 256;
  a.max_abs_err = 1e-6;
  b.count = 256;
  b.pass = false;
  b.mismatches = 2;
  b.first_bad = 10;
  b.max_rel_err = 0.5;
  const tcu::VerifyResult m = wb::merge(a, b);
  CHECK_FALSE(m.pass);
  CHECK(m.count == 512);
  CHECK(m.mismatches == 2);
  CHECK(m.first_bad == 266);
  CHECK(m.max_abs_err == 1e-6);
  CHECK(m.max_rel_err == 0.5);
}

// The launch functions validate before they touch the GPU, so these run without one. The
// pointers are never dereferenced: only their values matter.
namespace {
template <class T>
T* fake_device_pointer(std::uintptr_t byte_offset) {
  return reinterpret_cast<T*>(std::uintptr_t{0x7f0000000000} + byte_offset);  // 256-byte aligned base
}
}  // namespace

TEST_CASE("launch functions refuse tiles that break the WMMA rules, without a GPU") {
  using tcu::Layout;
  const auto* a_ok = fake_device_pointer<const __half>(0);
  const auto* b_ok = fake_device_pointer<const __half>(1024);
  auto* d_ok = fake_device_pointer<float>(4096);
  auto* dh_ok = fake_device_pointer<__half>(4096);

  SUBCASE("messages say what is wrong") {
    CHECK(wb::describe_tile_problem(wb::tile(a_ok), 16, 16).empty());
    CHECK(wb::describe_tile_problem(wb::tile(fake_device_pointer<const __half>(2)), 16, 16).find("2 bytes past") !=
          std::string::npos);
    CHECK(wb::describe_tile_problem(wb::tile(fake_device_pointer<const __half>(16)), 16, 16).find("16 bytes past") !=
          std::string::npos);
    const std::string ld12 = wb::describe_tile_problem(wb::tile(a_ok, Layout::row_major, 12), 16, 16);
    CHECK(ld12.find("ldm = 12") != std::string::npos);
    CHECK(ld12.find("shorter") != std::string::npos);
    CHECK(wb::describe_tile_problem(wb::tile(a_ok, Layout::row_major, 24), 16, 16).empty());
    CHECK(wb::describe_tile_problem(wb::tile<const __half>(nullptr), 16, 16) == "null pointer");
    // For float tiles the unit is 4 bytes: ld = 20 (80 bytes) is legal, ld = 18 (72 bytes) is not.
    CHECK(wb::describe_tile_problem(wb::tile(d_ok, Layout::col_major, 20), 16, 16).empty());
    CHECK(wb::describe_tile_problem(wb::tile(d_ok, Layout::col_major, 18), 16, 16).find("ldm = 18") !=
          std::string::npos);
  }

  SUBCASE("every checked launch function answers cudaErrorInvalidValue") {
    const auto a_plus2 = wb::tile(fake_device_pointer<const __half>(2));
    const auto a_plus16 = wb::tile(fake_device_pointer<const __half>(16));
    const auto a_ld12 = wb::tile(a_ok, Layout::row_major, 12);
    for (const auto& bad : {a_plus2, a_plus16, a_ld12}) {
      CHECK(wb::mma_16x16x16_f16_f32acc(bad, wb::tile(b_ok), wb::tile(d_ok)) == cudaErrorInvalidValue);
      CHECK(wb::mma_16x16x16_f16_f16acc(bad, wb::tile(b_ok), wb::tile(dh_ok)) == cudaErrorInvalidValue);
      CHECK(wb::mma_16x16x16_f16_f32acc(wb::tile(b_ok), bad, wb::tile(d_ok)) == cudaErrorInvalidValue);
      CHECK(wb::mma_16x16x16_relu_epilogue(bad, wb::tile(b_ok), 1.0f, 0.0f, wb::tile(d_ok)) == cudaErrorInvalidValue);
      CHECK(wb::constant_product(wb::ConstantProduct::X_U, bad, wb::tile(d_ok)) == cudaErrorInvalidValue);
    }
    CHECK(wb::mma_32x8x16_f16_f32acc(a_plus16, wb::tile(b_ok), wb::tile(d_ok)) == cudaErrorInvalidValue);
    CHECK(wb::mma_8x32x16_f16_f32acc(wb::tile(a_ok), wb::tile(b_ok), wb::tile(fake_device_pointer<float>(4100))) ==
          cudaErrorInvalidValue);
    // D stored with ld = 6 floats (24 bytes) breaks the ldm rule of store_matrix_sync.
    CHECK(wb::mma_16x16x16_f16_f32acc(wb::tile(a_ok), wb::tile(b_ok), wb::tile(d_ok, Layout::row_major, 6)) ==
          cudaErrorInvalidValue);
    // sm_80 kernels check their arguments before they ask about the GPU.
    CHECK(wb::mma_16x16x16_bf16_f32acc(wb::tile(fake_device_pointer<const __nv_bfloat16>(2)),
                                       wb::tile(fake_device_pointer<const __nv_bfloat16>(1024)),
                                       wb::tile(d_ok)) == cudaErrorInvalidValue);
    CHECK(wb::mma_16x16x8_tf32_f32acc(wb::tile(fake_device_pointer<const float>(0), Layout::row_major, 6),
                                      wb::tile(fake_device_pointer<const float>(1024)),
                                      wb::tile(d_ok)) == cudaErrorInvalidValue);
    CHECK(wb::mma_16x16x16_f16_f32acc(wb::tile<const __half>(nullptr), wb::tile(b_ok), wb::tile(d_ok)) ==
          cudaErrorInvalidValue);
  }

  SUBCASE("the PTX path needs only natural alignment, but still a real matrix") {
    CHECK(wb::ptx_mma_16x16x16_f16_f32acc(wb::tile(fake_device_pointer<const __half>(1)), wb::tile(b_ok),
                                          wb::tile(d_ok)) == cudaErrorInvalidValue);  // odd address
    CHECK(wb::ptx_mma_16x16x16_f16_f32acc(wb::tile(a_ok, Layout::row_major, 8), wb::tile(b_ok), wb::tile(d_ok)) ==
          cudaErrorInvalidValue);  // rows would overlap
    CHECK(wb::ptx_mma_16x16x16_f16_f32acc(wb::tile<const __half>(nullptr), wb::tile(b_ok), wb::tile(d_ok)) ==
          cudaErrorInvalidValue);
  }

  SUBCASE("probes refuse a null output") {
    CHECK(wb::probe_fragment_layout(wb::FragmentKind::accumulator_f32, nullptr) == cudaErrorInvalidValue);
    CHECK(wb::observe_ptx_m16n8k16_layout(wb::PtxOperand::a, nullptr) == cudaErrorInvalidValue);
  }
}
