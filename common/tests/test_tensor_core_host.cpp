// Host tests of the shared tensor-core layer: the constant-matrix table, the hi/lo split
// policy (at the 2^15 boundary), the staging index maths and the integer helpers.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "common/int_math.hpp"
#include "common/tensor_core/constant_matrices.hpp"
#include "common/tensor_core/constant_matrices_host.hpp"
#include "common/tensor_core/tile_geometry.hpp"
#include "common/tensor_core/warp_shares.hpp"
#include <vector>

namespace {
using tcu::tc::ConstantMatrix;
using tcu::tc::constant_entry_is_one;
using tcu::tc::kTile;

int ones_in(ConstantMatrix m, int param = 0) {
  int n = 0;
  for (int r = 0; r < kTile; ++r)
    for (int c = 0; c < kTile; ++c) n += constant_entry_is_one(m, r, c, param);
  return n;
}
}  // namespace

TEST_CASE("constant matrices: the table names each matrix once, in enum order") {
  std::set<std::string> names;
  int i = 0;
  for (const auto& info : tcu::tc::kConstantMatrices) {
    CHECK(static_cast<int>(info.matrix) == i++);
    names.insert(info.name);
    CHECK(std::string(info.rule).size() > 0);
  }
  CHECK(names.size() == sizeof(tcu::tc::kConstantMatrices) / sizeof(tcu::tc::kConstantMatrices[0]));
  CHECK(std::string(tcu::tc::constant_matrix_name(ConstantMatrix::Pt)) == "Pt");
}

TEST_CASE("constant matrices: entries") {
  CHECK(ones_in(ConstantMatrix::P) == 16);
  CHECK(ones_in(ConstantMatrix::Pt) == 16);
  CHECK(ones_in(ConstantMatrix::U) == 16 * 17 / 2);  // upper triangle with the diagonal
  CHECK(ones_in(ConstantMatrix::L) == 16 * 15 / 2);  // strictly lower
  CHECK(ones_in(ConstantMatrix::ones) == 256);
  for (int r = 0; r < kTile; ++r)
    for (int c = 0; c < kTile; ++c) {
      // Pᵀ is P transposed; L is U transposed without the diagonal.
      CHECK(constant_entry_is_one(ConstantMatrix::Pt, r, c) == constant_entry_is_one(ConstantMatrix::P, c, r));
      CHECK(constant_entry_is_one(ConstantMatrix::L, r, c) == (constant_entry_is_one(ConstantMatrix::U, c, r) && r != c));
    }
  // L masked per segment of g rows: block-diagonal strictly lower triangles.
  for (int g : {1, 2, 4, 8, 16}) {
    CHECK(ones_in(ConstantMatrix::L, g) == (16 / g) * g * (g - 1) / 2);
    CHECK_FALSE(constant_entry_is_one(ConstantMatrix::L, g < 16 ? g : 15, 0, g < 16 ? g : 0) == (g < 16));
  }
  CHECK(ones_in(ConstantMatrix::L, 0) == ones_in(ConstantMatrix::L, 16));
  // E_q: row q only; M(m): row r has its single one in column r / m.
  for (int q = 0; q < kTile; ++q) {
    CHECK(ones_in(ConstantMatrix::E, q) == 16);
    CHECK(constant_entry_is_one(ConstantMatrix::E, q, 7, q));
    CHECK_FALSE(constant_entry_is_one(ConstantMatrix::E, (q + 1) % 16, 7, q));
  }
  for (int m : {1, 2, 4, 8, 16}) {
    CHECK(ones_in(ConstantMatrix::M, m) == 16);
    for (int r = 0; r < kTile; ++r) CHECK(constant_entry_is_one(ConstantMatrix::M, r, r / m, m));
  }
}

TEST_CASE("constant matrices: products do what the table says (FP64 host model)") {
  // A = integers r·16 + c; check P·A, A·Pᵀ, A·U, L·A and V·M against direct sums.
  double a[kTile][kTile];
  for (int r = 0; r < kTile; ++r)
    for (int c = 0; c < kTile; ++c) a[r][c] = r * 16 + c;
  auto product = [&](bool constant_left, ConstantMatrix m, int param, int r, int c) {
    double s = 0;
    for (int k = 0; k < kTile; ++k)
      s += constant_left ? constant_entry_is_one(m, r, k, param) * a[k][c]
                         : a[r][k] * constant_entry_is_one(m, k, c, param);
    return s;
  };
  for (int r = 0; r < kTile; ++r)
    for (int c = 0; c < kTile; ++c) {
      double col_sum = 0, row_sum = 0, row_prefix = 0, col_prefix_before = 0, col_prefix_seg4 = 0, group_sum = 0;
      for (int k = 0; k < kTile; ++k) {
        col_sum += a[k][c];
        row_sum += a[r][k];
      }
      for (int k = 0; k <= c; ++k) row_prefix += a[r][k];
      for (int k = 0; k < r; ++k) col_prefix_before += a[k][c];
      for (int k = r / 4 * 4; k < r; ++k) col_prefix_seg4 += a[k][c];
      for (int k = c * 4; k < c * 4 + 4 && k < kTile; ++k) group_sum += a[r][k];
      CHECK(product(true, ConstantMatrix::P, 0, r, c) == (r == 0 ? col_sum : 0));
      CHECK(product(false, ConstantMatrix::Pt, 0, r, c) == (c == 0 ? row_sum : 0));
      CHECK(product(false, ConstantMatrix::U, 0, r, c) == row_prefix);
      CHECK(product(true, ConstantMatrix::L, 0, r, c) == col_prefix_before);
      CHECK(product(true, ConstantMatrix::L, 4, r, c) == col_prefix_seg4);
      CHECK(product(true, ConstantMatrix::E, 5, r, c) == (r == 5 ? col_sum : 0));
      CHECK(product(false, ConstantMatrix::M, 4, r, c) == (c < 4 ? group_sum : 0));
    }
}

TEST_CASE("hi/lo split: the 2^15 boundary and the error bound") {
  using tcu::tc::splits;
  CHECK(splits(0.0f));
  CHECK(splits(32768.0f));
  CHECK(splits(-32768.0f));
  CHECK_FALSE(splits(std::nextafter(32768.0f, 1e9f)));
  CHECK_FALSE(splits(-std::nextafter(32768.0f, 1e9f)));
  CHECK_FALSE(splits(std::numeric_limits<float>::infinity()));
  CHECK_FALSE(splits(-std::numeric_limits<float>::infinity()));
  CHECK_FALSE(splits(std::numeric_limits<float>::quiet_NaN()));
  // Every value that splits is recovered to within the documented bound, at and near the
  // boundary, across many binades and for subnormal lo.
  const float probes[] = {32768.0f, -32768.0f, std::nextafter(32768.0f, 0.0f), 32767.99f, 1.0f / 3.0f,
                          -12345.678f, 1e-3f, 3.0e-5f, 6.1e-5f, 0.1f, 2049.0f + 1.0f / 1024, 65504.0f / 2 - 0.5f};
  for (float v : probes) {
    REQUIRE(splits(v));
    const tcu::tc::HiLo s = tcu::tc::split_hi_lo(v);
    const double back = double(__half2float(s.hi)) + double(__half2float(s.lo));
    INFO("v = " << v);
    CHECK(std::isfinite(__half2float(s.hi)));
    CHECK(std::fabs(back - v) <= tcu::tc::split_error_bound(std::fabs(v)));
    CHECK(std::fabs(__half2float(s.lo)) <= std::fabs(v) * 0x1p-11 + 0x1p-24);
  }
  std::uint32_t x = 12345u;
  for (int i = 0; i < 20000; ++i) {  // random values in ±2^15 over 30 binades
    x = x * 1664525u + 1013904223u;
    const float mant = 1.0f + float(x >> 8) / float(1u << 24);
    const int e = int(x % 30u) - 15;
    const float v = std::ldexp(mant, e) * ((x & 1u) ? -1.0f : 1.0f);
    if (!splits(v)) continue;
    const tcu::tc::HiLo s = tcu::tc::split_hi_lo(v);
    const double back = double(__half2float(s.hi)) + double(__half2float(s.lo));
    REQUIRE(std::fabs(back - v) <= tcu::tc::split_error_bound(std::fabs(v)));
  }
}

TEST_CASE("integer helpers") {
  CHECK(tcu::ceil_div(0, 16) == 0);
  CHECK(tcu::ceil_div(1, 16) == 1);
  CHECK(tcu::ceil_div(16, 16) == 1);
  CHECK(tcu::ceil_div(17, 16) == 2);
  CHECK(tcu::ceil_div((std::int64_t(1) << 31) + 17, 256) == (std::int64_t(1) << 23) + 1);
  CHECK(tcu::round_up(17, 8) == 24);
  CHECK(tcu::round_up(24, 8) == 24);
  CHECK(tcu::is_pow2(1));
  CHECK(tcu::is_pow2(std::int64_t(1) << 40));
  CHECK_FALSE(tcu::is_pow2(0));
  CHECK_FALSE(tcu::is_pow2(48));
}

TEST_CASE("staging geometry: the pieces of a warp tile the 16x16 tile once") {
  std::vector<int> hits(tcu::tc::kTileElems, 0);
  for (int lane = 0; lane < tcu::tc::kWarpSize; ++lane)
    for (int i = 0; i < tcu::tc::kPieceElems; ++i)
      ++hits[tcu::tc::piece_row(lane) * kTile + tcu::tc::piece_col(lane) + i];
  for (int h : hits) CHECK(h == 1);
  for (int lane = 0; lane < tcu::tc::kWarpSize; ++lane)  // lane L's piece starts at element 8L
    CHECK(tcu::tc::piece_row(lane) * kTile + tcu::tc::piece_col(lane) == lane * tcu::tc::kPieceElems);
}

TEST_CASE("staging geometry: segment rows cover every element once, zeros elsewhere") {
  // Odd sizes: segments shorter than a row, one element, primes, longer than a tile row.
  for (std::int64_t s : {1, 7, 16, 17, 31, 100, 257}) {
    for (std::int64_t ns : {1, 3, 16, 17, 33}) {
      std::vector<int> hits(static_cast<std::size_t>(ns * s), 0);
      for (std::int64_t s0 = 0; s0 < ns; s0 += 16)
        for (std::int64_t c0 = 0; c0 < s; c0 += 16)
          for (int lane = 0; lane < tcu::tc::kWarpSize; ++lane) {
            const tcu::tc::PieceSource src = tcu::tc::segment_rows_source(ns, s, s0, c0, lane);
            const std::int64_t seg = s0 + tcu::tc::piece_row(lane), col = c0 + tcu::tc::piece_col(lane);
            if (seg >= ns || col >= s) {
              CHECK(src.valid <= 0);
              continue;
            }
            // The piece stays inside its segment: at most s - col elements, in row `seg`.
            CHECK(src.offset == seg * s + col);
            for (std::int64_t i = 0; i < tcu::tc::kPieceElems && i < src.valid; ++i) {
              // Only the part of the piece inside this tile's 16 columns belongs to it.
              if (tcu::tc::piece_col(lane) + i < kTile) ++hits[static_cast<std::size_t>(src.offset + i)];
            }
          }
      INFO("segment_size " << s << ", segments " << ns);
      for (int h : hits) REQUIRE(h == 1);
    }
  }
}

TEST_CASE("staging geometry: contiguous tiles cover an array once, with a zero tail") {
  for (std::int64_t len : {1, 8, 9, 255, 256, 257, 1000, 4097}) {
    std::vector<int> hits(static_cast<std::size_t>(len), 0);
    for (std::int64_t first = 0; first < len; first += tcu::tc::kTileElems)
      for (int lane = 0; lane < tcu::tc::kWarpSize; ++lane) {
        const tcu::tc::PieceSource src = tcu::tc::contiguous_source(len, first, lane);
        for (std::int64_t i = 0; i < tcu::tc::kPieceElems && i < src.valid; ++i)
          ++hits[static_cast<std::size_t>(src.offset + i)];
        if (first + lane * tcu::tc::kPieceElems >= len) CHECK(src.valid <= 0);
      }
    INFO("len " << len);
    for (int h : hits) REQUIRE(h == 1);
  }
}

TEST_CASE("warp shares: whole segments, in order, every element once, any count of segments and warps") {
  for (std::int64_t s : {1, 3, 17, 256, 1000}) {
    for (std::int64_t ns : {1, 2, 7, 37, 1000}) {
      for (std::int64_t warps : {1, 5, 64, 2000}) {
        CAPTURE(s);
        CAPTURE(ns);
        CAPTURE(warps);
        std::int64_t next = 0, largest = 0, smallest = ns;
        for (std::int64_t w = 0; w < warps; ++w) {
          const tcu::tc::WarpShare sh = tcu::tc::warp_segment_share(ns, s, w, warps);
          REQUIRE(sh.first == next);              // in order, no gap, no overlap
          REQUIRE(sh.end >= sh.first);
          REQUIRE(sh.first == sh.first_segment * s);  // whole segments
          REQUIRE(sh.end == sh.end_segment * s);
          const std::int64_t segs = (sh.end - sh.first) / s;
          largest = segs > largest ? segs : largest;
          smallest = segs < smallest ? segs : smallest;
          next = sh.end;
        }
        CHECK(next == ns * s);
        CHECK(largest - smallest <= 1);  // even
      }
    }
  }
}

TEST_CASE("warp shares: the tile-aligned walk loads every piece that touches the share, zeros elsewhere") {
  const tcu::tc::WarpShare sh{10, 13, 1000, 1300};  // segments of 100: a share starting and ending inside pieces
  std::vector<int> covered(2048, 0);
  for (std::int64_t p = 768; p < 1536; p += tcu::tc::kPieceElems) {  // the tiles the walk visits
    const tcu::tc::PieceSource src = tcu::tc::share_piece_source(sh, p);
    const bool touches = p + tcu::tc::kPieceElems > sh.first && p < sh.end;
    CHECK((src.valid > 0) == touches);
    if (!touches) continue;
    CHECK(src.offset == p);
    CHECK(src.valid == sh.end - p);  // never past the share's end
    for (std::int64_t i = 0; i < tcu::tc::kPieceElems && i < src.valid; ++i) ++covered[static_cast<std::size_t>(p + i)];
  }
  for (std::int64_t e = sh.first; e < sh.end; ++e) CHECK(covered[static_cast<std::size_t>(e)] == 1);
}
