// GPU tests of the shared tensor-core layer (common/tensor_core/): each device helper against
// its host model. Outputs are poisoned first, so an element a helper fails to write fails.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/tensor_core/constant_matrices_host.hpp"
#include "common/tensor_core/fragments.cuh"
#include "common/tensor_core/launch.hpp"
#include "common/tensor_core/segment_rows.cuh"
#include "common/tensor_core/segmented_row_scan.cuh"
#include "common/verify.hpp"

namespace tc = tcu::tc;

namespace {

std::uint16_t bits(__half h) {
  std::uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

__global__ void constant_tile_kernel(tc::ConstantMatrix m, int param, __half* out) {
  __shared__ __align__(32) __half tile[tc::kTileElems];
  tc::warp_write_constant_tile(tile, m, tc::lane_id(), param);
  for (int e = tc::lane_id(); e < tc::kTileElems; e += 32) out[e] = tile[e];
}

// X·Pᵀ with Pᵀ from load_constant(P as FragBCol): column 0 of the result = row sums of X.
__global__ void x_times_pt_kernel(const __half* x, float* out) {
  __shared__ __align__(32) __half scratch[tc::kTileElems];
  __shared__ __align__(32) __half xs[tc::kTileElems];
  for (int e = tc::lane_id(); e < tc::kTileElems; e += 32) xs[e] = x[e];
  __syncwarp();
  tc::FragBCol pt;
  tc::load_constant(pt, tc::ConstantMatrix::P, scratch, tc::lane_id());
  tc::FragA a;
  tc::FragAcc acc;
  tc::wmma::load_matrix_sync(a, xs, tc::kTile);
  tc::wmma::fill_fragment(acc, 0.0f);
  tc::wmma::mma_sync(acc, a, pt, acc);
  tc::wmma::store_matrix_sync(out, acc, tc::kTile, tc::wmma::mem_row_major);
}

template <int kRows>
__global__ void split_rows_kernel(const float* src, __half* hi, __half* lo, int* ok) {
  __shared__ __align__(32) float s[tc::kTileElems];
  __shared__ __align__(32) __half h[tc::kTileElems], l[tc::kTileElems];
  for (int e = tc::lane_id(); e < tc::kTileElems; e += 32) {
    s[e] = src[e];
    h[e] = hi[e];
    l[e] = lo[e];
  }
  __syncwarp();
  const bool r = tc::warp_split_rows<kRows>(s, h, l, tc::lane_id());
  __syncwarp();
  for (int e = tc::lane_id(); e < tc::kTileElems; e += 32) {
    hi[e] = h[e];
    lo[e] = l[e];
  }
  if (tc::lane_id() == 0) *ok = r;
}

// acc = X·1 through mma_split_operand (row sums of X in every column), or -1 in out[0] if refused.
__global__ void mma_split_kernel(const float* x, float* out, int* ok) {
  __shared__ __align__(32) float xs[tc::kTileElems];
  __shared__ __align__(32) __half hi[tc::kTileElems], lo[tc::kTileElems];
  for (int e = tc::lane_id(); e < tc::kTileElems; e += 32) xs[e] = x[e];
  __syncwarp();
  tc::FragBRow ones;
  tc::wmma::fill_fragment(ones, __float2half(1.0f));
  tc::FragAcc acc;
  tc::wmma::fill_fragment(acc, 0.0f);
  const bool r = tc::mma_split_operand(acc, xs, ones, hi, lo, tc::lane_id());
  tc::wmma::store_matrix_sync(out, acc, tc::kTile, tc::wmma::mem_row_major);
  if (tc::lane_id() == 0) *ok = r;
}

// One warp stages tile t of each layout and writes it out: rows layout (segments) or contiguous.
template <tc::Cache kCache>
__global__ void staging_kernel(const __half* x, std::int64_t num_segments, std::int64_t segment_size,
                               std::int64_t first_segment, std::int64_t first_col, std::int64_t len,
                               std::int64_t first, __half* rows_out, __half* contiguous_out) {
  __shared__ __align__(32) __half tile[tc::kTileElems];
  const int lane = tc::lane_id();
  tc::store_piece(tile, tc::load_segment_rows<kCache>(x, num_segments, segment_size, first_segment, first_col, lane),
                  lane);
  __syncwarp();
  for (int e = lane; e < tc::kTileElems; e += 32) rows_out[e] = tile[e];
  __syncwarp();
  tc::store_piece(tile, tc::load_contiguous<kCache>(x, len, first, lane), lane);
  __syncwarp();
  for (int e = lane; e < tc::kTileElems; e += 32) contiguous_out[e] = tile[e];
}

template <class OutT>
__global__ void store8_kernel(OutT* dst, std::int64_t valid) {
  float v[8];
  for (int j = 0; j < 8; ++j) v[j] = 1.5f + j;
  if (threadIdx.x == 0) tc::store8(dst, v, valid);
}

// Every warp walks rounds of 256 elements with run_round_pipeline and writes each round's sum
// (read from the staged shared tile) to sums[round].
__global__ void pipeline_kernel(const __half* x, std::int64_t n, float* sums) {
  __shared__ __align__(32) __half tiles[4][tc::kTileElems];
  const int lane = tc::lane_id(), w = tc::warp_in_block();
  const std::int64_t rounds = tcu::ceil_div(n, tc::kTileElems);
  tc::Piece piece;
  tc::run_round_pipeline(
      tc::StridedRounds{static_cast<std::int64_t>(blockIdx.x) * 4 + w, static_cast<std::int64_t>(gridDim.x) * 4,
                        rounds},
      [&](const tc::StridedRounds& r) { piece = tc::load_contiguous(x, n, r.round * tc::kTileElems, lane); },
      [&] { tc::store_piece(tiles[w], piece, lane); },
      [&](const tc::StridedRounds& r) {
        float s = 0;
        for (int i = 0; i < 8; ++i) s += __half2float(tiles[w][lane * 8 + i]);
        for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(tc::kFullMask, s, o);
        if (lane == 0) sums[r.round] = s;
      });
}

// One round of 8 tiles through the segmented row scan (segmented_row_scan.cuh), as the any-size
// kernels use it: cut at the starts, the row totals V, the row carries, then A_pre·U and
// A_post·U per tile; the inclusive value of every element, the round's carry out, and each
// row's carry_in, start, end and segment.
__global__ void segmented_row_scan_kernel(const __half* x, std::int64_t first, std::int64_t s, float carry,
                                          float* vals, float* carry_out, int* starts, int* ends,
                                          std::int64_t* segs) {
  constexpr int kT = tc::kRowScanTiles;
  __shared__ __align__(128) __half post[kT][tc::kTileElems], pre[kT][tc::kTileElems];
  __shared__ __align__(32) __half u[tc::kTileElems], e_window[tc::kEWindowRows * tc::kTile];
  __shared__ __align__(32) float v[tc::kTileElems], r_pre[tc::kTileElems], r_post[tc::kTileElems];
  __shared__ float cin[kT * tc::kTile];
  const int lane = tc::lane_id();
  for (int e = lane; e < kT * tc::kTileElems; e += 32) post[e / tc::kTileElems][e % tc::kTileElems] = x[e];
  tc::warp_write_constant_tile(u, tc::ConstantMatrix::U, lane);
  tc::write_e_window(e_window, lane, 32);
  __syncwarp();
  const unsigned su = static_cast<unsigned>(s), step = tc::kTileElems % su;
  const tc::RowCursor at = tc::row_cursor(first, s);
  unsigned rem = tc::row_cursor_after(at, tc::kTile * tc::piece_row(lane), su).rem;
  tc::cut_round<kT>(post, pre, rem, step, su, lane);
  tc::round_row_totals<kT>(v, post, pre, e_window);
  const float out_carry = tc::round_row_carries<kT>(
      v, tc::row_cursor_after(at, 4 * tc::kTile * lane, su), su, carry, lane,
      [&](int g, float carry_in, float, float, int start, int end, std::int64_t segment) {
        cin[g] = carry_in;
        starts[g] = start;
        ends[g] = end;
        segs[g] = segment;
      });
  __syncwarp();
  tc::FragBRow fu;
  tc::wmma::load_matrix_sync(fu, u, tc::kTile);
  for (int k = 0; k < kT; ++k) {
    tc::FragA fa;
    tc::FragAcc acc;
    tc::wmma::load_matrix_sync(fa, pre[k], tc::kTile);
    tc::wmma::fill_fragment(acc, 0.0f);
    tc::wmma::mma_sync(acc, fa, fu, acc);
    tc::wmma::store_matrix_sync(r_pre, acc, tc::kTile, tc::wmma::mem_row_major);
    tc::wmma::load_matrix_sync(fa, post[k], tc::kTile);
    tc::wmma::fill_fragment(acc, 0.0f);
    tc::wmma::mma_sync(acc, fa, fu, acc);
    tc::wmma::store_matrix_sync(r_post, acc, tc::kTile, tc::wmma::mem_row_major);
    __syncwarp();
    const int start = tc::row_start(rem, su);
    for (int j = 0; j < 8; ++j) {
      const int e = lane * 8 + j;
      vals[k * tc::kTileElems + e] =
          tc::piece_col(lane) + j < start ? cin[k * tc::kTile + tc::piece_row(lane)] + r_pre[e] : r_post[e];
    }
    __syncwarp();
    rem += step;
    if (rem >= su) rem -= su;
  }
  if (lane == 0) *carry_out = out_carry;
}

}  // namespace

TEST_CASE("tensor_core: constant tiles on the device equal the host table") {
  tcu::DeviceBuffer<__half> d(tc::kTileElems);
  std::vector<__half> got(tc::kTileElems);
  struct Case {
    tc::ConstantMatrix m;
    int param;
  };
  const Case cases[] = {{tc::ConstantMatrix::P, 0}, {tc::ConstantMatrix::Pt, 0}, {tc::ConstantMatrix::U, 0},
                        {tc::ConstantMatrix::L, 0}, {tc::ConstantMatrix::L, 4},  {tc::ConstantMatrix::ones, 0},
                        {tc::ConstantMatrix::E, 9}, {tc::ConstantMatrix::M, 2},  {tc::ConstantMatrix::M, 8}};
  for (const Case& c : cases) {
    tcu::poison_device(d.data(), d.bytes());
    constant_tile_kernel<<<1, 32>>>(c.m, c.param, d.data());
    TCU_CUDA_CHECK(cudaGetLastError());
    d.copy_to_host(got.data(), got.size());
    INFO(tc::constant_matrix_name(c.m) << " param " << c.param);
    for (int e = 0; e < tc::kTileElems; ++e)
      REQUIRE(__half2float(got[e]) == (tc::constant_entry_is_one(c.m, e / 16, e % 16, c.param) ? 1.0f : 0.0f));
  }
}

TEST_CASE("tensor_core: P loaded as a col_major matrix_b is P transposed (X·Pt = row sums)") {
  std::vector<__half> x(tc::kTileElems);
  for (int e = 0; e < tc::kTileElems; ++e) x[e] = __float2half(float((e * 7) % 23 - 11));
  tcu::DeviceBuffer<__half> dx(x.size());
  tcu::DeviceBuffer<float> dout(tc::kTileElems);
  dx.copy_from_host(x.data(), x.size());
  tcu::poison_device(dout.data(), dout.bytes());
  x_times_pt_kernel<<<1, 32>>>(dx.data(), dout.data());
  TCU_CUDA_CHECK(cudaGetLastError());
  std::vector<float> out(tc::kTileElems);
  dout.copy_to_host(out.data(), out.size());
  for (int r = 0; r < 16; ++r) {
    float row = 0;
    for (int c = 0; c < 16; ++c) row += __half2float(x[r * 16 + c]);
    CHECK(out[r * 16] == row);  // integers: exact
    for (int c = 1; c < 16; ++c) CHECK(out[r * 16 + c] == 0.0f);
  }
}

TEST_CASE("tensor_core: warp_split_rows matches the host split, refuses above 2^15") {
  std::vector<float> src(tc::kTileElems);
  std::uint32_t s = 99u;
  for (float& v : src) {
    s = s * 1664525u + 1013904223u;
    v = (float(s >> 8) / float(1u << 24) - 0.5f) * 65536.0f;  // within ±2^15
  }
  src[37] = 32768.0f;  // the boundary itself splits
  tcu::DeviceBuffer<float> dsrc(src.size());
  tcu::DeviceBuffer<__half> dhi(tc::kTileElems), dlo(tc::kTileElems);
  tcu::DeviceBuffer<int> dok(1);
  std::vector<__half> hi(tc::kTileElems), lo(tc::kTileElems);
  int ok = -1;
  auto run = [&](int rows) {
    dsrc.copy_from_host(src.data(), src.size());
    tcu::poison_device(dhi.data(), dhi.bytes());
    tcu::poison_device(dlo.data(), dlo.bytes());
    if (rows == 16)
      split_rows_kernel<16><<<1, 32>>>(dsrc.data(), dhi.data(), dlo.data(), dok.data());
    else
      split_rows_kernel<8><<<1, 32>>>(dsrc.data(), dhi.data(), dlo.data(), dok.data());
    TCU_CUDA_CHECK(cudaGetLastError());
    dhi.copy_to_host(hi.data(), hi.size());
    dlo.copy_to_host(lo.data(), lo.size());
    dok.copy_to_host(&ok, 1);
  };
  for (int rows : {16, 8}) {
    run(rows);
    INFO("rows " << rows);
    REQUIRE(ok == 1);
    for (int e = 0; e < tc::kTileElems; ++e) {
      if (e < rows * 16) {
        const tc::HiLo want = tc::split_hi_lo(src[e]);
        REQUIRE(bits(hi[e]) == bits(want.hi));
        REQUIRE(bits(lo[e]) == bits(want.lo));
      } else {  // rows past kRows are left untouched (still poisoned)
        REQUIRE(std::isnan(__half2float(hi[e])));
      }
    }
  }
  src[200 - 129] = std::nextafter(32768.0f, 1e9f);  // one value just above 2^15, inside 8 rows
  for (int rows : {16, 8}) {
    run(rows);
    CHECK(ok == 0);
    for (int e = 0; e < tc::kTileElems; ++e) REQUIRE(std::isnan(__half2float(hi[e])));  // nothing written
  }
  src[71] = NAN;
  run(16);
  CHECK(ok == 0);
}

TEST_CASE("tensor_core: mma_split_operand adds X·C to within the split bound, or refuses") {
  std::vector<float> x(tc::kTileElems);
  for (int e = 0; e < tc::kTileElems; ++e) x[e] = std::ldexp(1.0f + e / 256.0f, (e % 29) - 14) * ((e & 1) ? -1 : 1);
  tcu::DeviceBuffer<float> dx(x.size()), dout(tc::kTileElems);
  tcu::DeviceBuffer<int> dok(1);
  dx.copy_from_host(x.data(), x.size());
  tcu::poison_device(dout.data(), dout.bytes());
  mma_split_kernel<<<1, 32>>>(dx.data(), dout.data(), dok.data());
  TCU_CUDA_CHECK(cudaGetLastError());
  std::vector<float> out(tc::kTileElems);
  int ok = -1;
  dout.copy_to_host(out.data(), out.size());
  dok.copy_to_host(&ok, 1);
  REQUIRE(ok == 1);
  for (int r = 0; r < 16; ++r) {
    double exact = 0, mag = 0;
    for (int c = 0; c < 16; ++c) {
      exact += x[r * 16 + c];
      mag += std::fabs(x[r * 16 + c]);
    }
    // split error per term + fp32 accumulation over 32 products
    const double bound = 16 * tc::split_error_bound(mag) + mag * 32 * 0x1p-24;
    for (int c = 0; c < 16; ++c) CHECK(std::fabs(out[r * 16 + c] - exact) <= bound);
  }
  x[5] = 40000.0f;
  dx.copy_from_host(x.data(), x.size());
  mma_split_kernel<<<1, 32>>>(dx.data(), dout.data(), dok.data());
  TCU_CUDA_CHECK(cudaGetLastError());
  dout.copy_to_host(out.data(), out.size());
  dok.copy_to_host(&ok, 1);
  CHECK(ok == 0);
  for (float v : out) CHECK(v == 0.0f);  // acc unchanged (it was zero)
}

TEST_CASE("tensor_core: staged tiles from unaligned pointers equal the host geometry") {
  const std::int64_t total = 5000;
  std::vector<__half> host(total + 16);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = __float2half(float(int(i % 2000) - 1000));
  tcu::DeviceBuffer<__half> dx(host.size()), drows(tc::kTileElems), dcont(tc::kTileElems);
  dx.copy_from_host(host.data(), host.size());
  std::vector<__half> rows(tc::kTileElems), cont(tc::kTileElems);
  for (int offset : {0, 1, 3, 8}) {          // pointer alignment in halves
    for (std::int64_t s : {1, 17, 100, 257}) {  // segment sizes
      const std::int64_t ns = (total - offset) / s;
      for (std::int64_t s0 : {std::int64_t(0), ns > 20 ? ns - 5 : std::int64_t(0)})
        for (std::int64_t c0 : {std::int64_t(0), s > 16 ? std::int64_t(16) : std::int64_t(0)})
          for (int cache = 0; cache < 2; ++cache) {
            const std::int64_t len = total - offset, first = (s0 * 37) % len;
            tcu::poison_device(drows.data(), drows.bytes());
            tcu::poison_device(dcont.data(), dcont.bytes());
            if (cache == 0)
              staging_kernel<tc::Cache::read_only><<<1, 32>>>(dx.data() + offset, ns, s, s0, c0, len, first,
                                                               drows.data(), dcont.data());
            else
              staging_kernel<tc::Cache::streaming><<<1, 32>>>(dx.data() + offset, ns, s, s0, c0, len, first,
                                                               drows.data(), dcont.data());
            TCU_CUDA_CHECK(cudaGetLastError());
            drows.copy_to_host(rows.data(), rows.size());
            dcont.copy_to_host(cont.data(), cont.size());
            INFO("offset " << offset << " s " << s << " s0 " << s0 << " c0 " << c0);
            for (int lane = 0; lane < 32; ++lane) {
              const tc::PieceSource r = tc::segment_rows_source(ns, s, s0, c0, lane);
              const tc::PieceSource c = tc::contiguous_source(len, first, lane);
              for (int i = 0; i < 8; ++i) {
                const __half want_r = i < r.valid ? host[offset + r.offset + i] : __float2half(0.0f);
                const __half want_c = i < c.valid ? host[offset + c.offset + i] : __float2half(0.0f);
                REQUIRE(bits(rows[lane * 8 + i]) == bits(want_r));
                REQUIRE(bits(cont[lane * 8 + i]) == bits(want_c));
              }
            }
          }
    }
  }
}

TEST_CASE("tensor_core: store8 writes exactly the valid elements, aligned or not") {
  for (int offset : {0, 1, 4}) {
    for (std::int64_t valid : {0, 1, 7, 8, 100}) {
      tcu::DeviceBuffer<__half> dh(24);
      tcu::DeviceBuffer<float> df(24);
      tcu::poison_device(dh.data(), dh.bytes());
      tcu::poison_device(df.data(), df.bytes());
      store8_kernel<<<1, 32>>>(dh.data() + offset, valid);
      store8_kernel<<<1, 32>>>(df.data() + offset, valid);
      TCU_CUDA_CHECK(cudaGetLastError());
      std::vector<__half> h(24);
      std::vector<float> f(24);
      dh.copy_to_host(h.data(), h.size());
      df.copy_to_host(f.data(), f.size());
      INFO("offset " << offset << " valid " << valid);
      for (int i = 0; i < 24; ++i) {
        const int j = i - offset;
        const bool written = j >= 0 && j < 8 && j < valid;
        if (written) {
          CHECK(__half2float(h[i]) == 1.5f + j);
          CHECK(f[i] == 1.5f + j);
        } else {
          CHECK(std::isnan(__half2float(h[i])));
          CHECK(std::isnan(f[i]));
        }
      }
    }
  }
}

// The CPU model: element e of the round (first + e of the array) lies at offset (first + e) mod s
// of segment (first + e) / s; its inclusive value restarts at every offset 0, the first ones
// continuing `carry`. Small integers: every sum exact, so equality is required.
TEST_CASE("tensor_core: segmented_row_scan equals the CPU model for segments of any size >= 17") {
  constexpr int kN = tc::kRowScanTiles * tc::kTileElems;  // a round
  std::vector<__half> x(kN);
  std::uint64_t state = 7;
  for (auto& v : x) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = __float2half(static_cast<float>(static_cast<int>((state >> 33) % 9) - 4));
  }
  tcu::DeviceBuffer<__half> dx(kN);
  dx.copy_from_host(x.data(), x.size());
  tcu::DeviceBuffer<float> dvals(kN), dcarry(1);
  tcu::DeviceBuffer<int> dstarts(128), dends(128);
  tcu::DeviceBuffer<std::int64_t> dsegs(128);
  for (std::int64_t s : {17, 18, 24, 31, 33, 48, 100, 255, 256, 257, 1000, 2047, 2049, 12345})
    for (std::int64_t first : {std::int64_t{0}, std::int64_t{256}, std::int64_t{2048} * 37,
                               (std::int64_t{1} << 33) + 512}) {
      const float carry = 5.0f;
      tcu::poison_device(dvals.data(), dvals.bytes());
      segmented_row_scan_kernel<<<1, 32>>>(dx.data(), first, s, carry, dvals.data(), dcarry.data(), dstarts.data(),
                                           dends.data(), dsegs.data());
      TCU_CUDA_CHECK(cudaGetLastError());
      std::vector<float> vals(kN), carry_out(1);
      std::vector<int> starts(128), ends(128);
      std::vector<std::int64_t> segs(128);
      dvals.copy_to_host(vals.data(), vals.size());
      dcarry.copy_to_host(carry_out.data(), 1);
      dstarts.copy_to_host(starts.data(), 128);
      dends.copy_to_host(ends.data(), 128);
      dsegs.copy_to_host(segs.data(), 128);
      INFO("s " << s << " first " << first);
      double run = carry;
      for (int e = 0; e < kN; ++e) {
        const std::int64_t o = (first + e) % s;
        run = (o == 0 ? 0.0 : run) + __half2float(x[e]);
        CAPTURE(e);
        REQUIRE(static_cast<double>(vals[e]) == run);
      }
      CHECK(static_cast<double>(carry_out[0]) == run);
      for (int g = 0; g < 128; ++g) {
        int want_start = 16, want_end = 16;
        for (int c = 15; c >= 0; --c) {
          const std::int64_t o = (first + 16 * g + c) % s;
          if (o == 0) want_start = c;
          if (o == s - 1) want_end = c;
        }
        CAPTURE(g);
        CHECK(starts[g] == want_start);
        CHECK(ends[g] == want_end);
        CHECK(segs[g] == (first + 16 * g) / s);
      }
    }
}

TEST_CASE("tensor_core: run_round_pipeline visits every round once, staged data intact") {
  for (std::int64_t n : {1, 255, 256, 257, 100003}) {
    std::vector<__half> x(n);
    for (std::int64_t i = 0; i < n; ++i) x[i] = __float2half(float(i % 13) - 6.0f);
    const std::int64_t rounds = tcu::ceil_div(n, 256);
    tcu::DeviceBuffer<__half> dx(n);
    tcu::DeviceBuffer<float> dsums(rounds);
    dx.copy_from_host(x.data(), n);
    tcu::poison_device(dsums.data(), dsums.bytes());
    for (int grid : {1, 3}) {
      pipeline_kernel<<<grid, 128>>>(dx.data(), n, dsums.data());
      TCU_CUDA_CHECK(cudaGetLastError());
      std::vector<float> sums(rounds);
      dsums.copy_to_host(sums.data(), rounds);
      for (std::int64_t r = 0; r < rounds; ++r) {
        float want = 0;
        for (std::int64_t i = r * 256; i < std::min(n, (r + 1) * 256); ++i) want += __half2float(x[i]);
        INFO("n " << n << " grid " << grid << " round " << r);
        REQUIRE(sums[r] == want);  // small integers: exact
      }
    }
  }
}

TEST_CASE("tensor_core: launch sizes and the temporary pool") {
  int device = 0, sms = 0;
  TCU_CUDA_CHECK(cudaGetDevice(&device));
  TCU_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK(tc::sm_count() == sms);
  CHECK(tc::sm_count() == sms);  // cached
  CHECK(tc::grid_for(0, 4) == 1);
  CHECK(tc::grid_for(5, 4) == 5);
  CHECK(tc::grid_for(std::int64_t(1) << 40, 4) == 4 * sms);
  const int g = tc::resident_grid_size(reinterpret_cast<const void*>(&pipeline_kernel), 128, std::int64_t(1) << 40);
  CHECK(g >= sms);
  CHECK(g <= 16 * sms);
  cudaStream_t stream;
  TCU_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int i = 0; i < 3; ++i) {
    tc::TempBuffer<float> buf;
    REQUIRE(buf.allocate(1000 + i, stream) == cudaSuccess);
    REQUIRE(buf.get() != nullptr);
    TCU_CUDA_CHECK(cudaMemsetAsync(buf.get(), 0, (1000 + i) * sizeof(float), stream));
  }
  TCU_CUDA_CHECK(cudaStreamSynchronize(stream));
  TCU_CUDA_CHECK(cudaStreamDestroy(stream));
}
