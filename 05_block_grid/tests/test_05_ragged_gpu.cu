// Chapter 05, GPU tests of the ragged-segment API (CUB's offsets): every distribution of the
// benchmark at small n against FP64 (derived tolerances) and, with integer inputs, bit for bit;
// int32 and int64 offsets; empty segments, zero segments, gaps (the poison must survive there, and
// NaN or infinities in the input there must not reach a result),
// overlapping segments (reductions), unordered ones (scans too: still nothing written in the gaps),
// one segment of everything, CSR row pointers
// (p, p + 1), an unaligned input, a non-blocking stream, determinism, invalid arguments. "[large]":
// n = 2^31 + 5 with int64 offsets (few segments); int32 offsets up to 2^31 - 1.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "05_block_grid/bench/measure.hpp"
#include "05_block_grid/bench/ragged_offsets.hpp"
#include "05_block_grid/tcu_device.cuh"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "common/verify.hpp"

namespace bd = tcu::bench::device;
using tcu::Dist;

namespace {

constexpr std::uint64_t kSeed = 777;

struct Segs {
  std::vector<std::int64_t> b, e;
  std::int64_t n = 0;
  bool overlapping = false;  // scans are not run on these (unordered ones they take)
};

Segs from(const bd::RaggedSegments& r) { return Segs{r.begin, r.end, r.n, false}; }

template <class T>
std::vector<T> to_host(const T* d, std::size_t count) {
  std::vector<T> h(count);
  TCU_CUDA_CHECK(cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
template <class T>
tcu::DeviceBuffer<T> to_device(const std::vector<T>& h) {
  tcu::DeviceBuffer<T> d(std::max<std::size_t>(h.size(), 1));
  if (!h.empty()) TCU_CUDA_CHECK(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

std::int64_t max_len(const Segs& s) {
  std::int64_t m = 1;
  for (std::size_t i = 0; i < s.b.size(); ++i) m = std::max(m, s.e[i] - s.b[i]);
  return m;
}

// Reduce and (for ordered segments) the four scans, each checked against FP64 per segment;
// scans must leave every element outside the segments poisoned.
// not_finite_gaps: the elements that no segment covers hold NaN, +inf and -inf in turn.
template <class OffT>
void check_case(const Segs& c, Dist dist, std::int64_t in_offset, cudaStream_t stream, const std::string& what,
                bool not_finite_gaps = false) {
  INFO(what << " dist=" << tcu::dist_name(dist) << " offset=" << in_offset << " offsets=" << sizeof(OffT) * 8 << "-bit"
            << (not_finite_gaps ? " (NaN and infinities outside the segments)" : ""));
  const std::int64_t ns = static_cast<std::int64_t>(c.b.size()), n = c.n;
  std::vector<__half> x(static_cast<std::size_t>(n));
  tcu::fill_host(x.data(), x.size(), dist, kSeed);
  if (not_finite_gaps) {
    std::vector<char> covered(static_cast<std::size_t>(n), 0);
    for (std::int64_t s = 0; s < ns; ++s)
      for (std::int64_t i = std::max<std::int64_t>(c.b[s], 0); i < std::min(c.e[s], n); ++i) covered[i] = 1;
    const __half not_finite[3] = {__float2half(NAN), __float2half(INFINITY), __float2half(-INFINITY)};
    for (std::int64_t i = 0, k = 0; i < n; ++i)
      if (!covered[i]) x[i] = not_finite[k++ % 3];
  }
  tcu::DeviceBuffer<__half> in(static_cast<std::size_t>(n + in_offset + 1));
  TCU_CUDA_CHECK(cudaMemcpy(in.data() + in_offset, x.data(), x.size() * 2, cudaMemcpyHostToDevice));
  const std::vector<OffT> hb(c.b.begin(), c.b.end()), he(c.e.begin(), c.e.end());
  tcu::DeviceBuffer<OffT> db = to_device(hb), de = to_device(he);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  const __half* d_in = in.data() + in_offset;
  const bool exact = dist == Dist::integers;
  // reduce
  {
    std::vector<double> want(ns), mag(ns);
    for (std::int64_t s = 0; s < ns; ++s) {
      tcu::Fp64Sum a, m;
      for (std::int64_t i = c.b[s]; i < c.e[s]; ++i) {
        a.add(tcu::to_double(x[i]));
        m.add(std::fabs(tcu::to_double(x[i])));
      }
      want[s] = a.value();
      mag[s] = m.value();
    }
    tcu::DeviceBuffer<float> out(std::max<std::int64_t>(ns, 1));
    tcu::poison_device(out.data(), out.bytes(), stream);
    TCU_CUDA_CHECK(tcu::DeviceSegmentedReduce::Sum(d_in, out.data(), ns, db.data(), de.data(), stream));
    TCU_CUDA_CHECK(cudaStreamSynchronize(stream));
    const tcu::Tolerance tol = exact ? tcu::exact_tolerance() : bd::reduce_tolerance(max_len(c));
    const tcu::VerifyResult r = tcu::verify(to_host(out.data(), ns).data(), want.data(), mag.data(), ns, tol);
    INFO("reduce: " << r.summary());
    CHECK(r.pass);
  }
  if (c.overlapping) return;
  for (bool inclusive : {true, false}) {
    for (bool fp16 : {false, true}) {
      std::vector<double> want(n, 0.0), mag(n, 0.0);
      std::vector<char> in_seg(n, 0);
      double top = 0;
      for (std::int64_t s = 0; s < ns; ++s) {
        tcu::Fp64Sum a, m;
        for (std::int64_t i = c.b[s]; i < c.e[s]; ++i) {
          if (inclusive) { a.add(tcu::to_double(x[i])); m.add(std::fabs(tcu::to_double(x[i]))); }
          want[i] = a.value();
          mag[i] = m.value();
          in_seg[i] = 1;
          top = std::max(top, std::fabs(want[i]));
          if (!inclusive) { a.add(tcu::to_double(x[i])); m.add(std::fabs(tcu::to_double(x[i]))); }
        }
      }
      if (fp16 && top > 65504.0) continue;  // does not fit in fp16 (documented)
      const std::size_t elem = fp16 ? 2 : 4;
      tcu::DeviceBuffer<unsigned char> out(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * elem);
      tcu::poison_device(out.data(), out.bytes(), stream);
      cudaError_t err;
      if (fp16) {
        auto* o = reinterpret_cast<__half*>(out.data());
        err = inclusive ? tcu::DeviceSegmentedScan::InclusiveSum(d_in, o, ns, db.data(), de.data(), stream)
                        : tcu::DeviceSegmentedScan::ExclusiveSum(d_in, o, ns, db.data(), de.data(), stream);
      } else {
        auto* o = reinterpret_cast<float*>(out.data());
        err = inclusive ? tcu::DeviceSegmentedScan::InclusiveSum(d_in, o, ns, db.data(), de.data(), stream)
                        : tcu::DeviceSegmentedScan::ExclusiveSum(d_in, o, ns, db.data(), de.data(), stream);
      }
      TCU_CUDA_CHECK(err);
      TCU_CUDA_CHECK(cudaStreamSynchronize(stream));
      std::vector<double> got(n);
      if (fp16) {
        const auto h = to_host(reinterpret_cast<const __half*>(out.data()), n);
        for (std::int64_t i = 0; i < n; ++i) got[i] = tcu::to_double(h[i]);
      } else {
        const auto h = to_host(reinterpret_cast<const float*>(out.data()), n);
        for (std::int64_t i = 0; i < n; ++i) got[i] = h[i];
      }
      const tcu::Tolerance tol = exact && !fp16 ? tcu::exact_tolerance() : bd::scan_tolerance(max_len(c), fp16);
      std::int64_t bad = 0, gap_written = 0, first_bad = -1;
      for (std::int64_t i = 0; i < n; ++i) {
        if (!in_seg[i]) {
          gap_written += !std::isnan(got[i]);
          continue;
        }
        const bool ok = std::isfinite(got[i]) && std::fabs(got[i] - want[i]) <= tol.bound(want[i], mag[i]);
        if (!ok && bad++ == 0) first_bad = i;
      }
      INFO((inclusive ? "inclusive" : "exclusive") << (fp16 ? " fp16" : " fp32") << ": " << bad
                                                   << " wrong, first at " << first_bad << " (got "
                                                   << (first_bad >= 0 ? got[first_bad] : 0.0) << ", want "
                                                   << (first_bad >= 0 ? want[first_bad] : 0.0) << "); "
                                                   << gap_written << " gap elements written");
      CHECK(bad == 0);
      CHECK(gap_written == 0);
    }
  }
}

template <class OffT>
void check_all(const Segs& c, const std::string& what, std::int64_t in_offset = 0) {
  for (Dist d : {Dist::integers, Dist::normal}) check_case<OffT>(c, d, in_offset, 0, what);
}

}  // namespace

TEST_CASE("ragged: every benchmark distribution, int32 and int64 offsets, vs FP64 and exact integers") {
  for (const std::string& dist : bd::ragged_distributions()) {
    const Segs c = from(bd::make_ragged_segments(dist, (std::int64_t(1) << 16) + 1237, 3));
    check_all<std::int32_t>(c, dist);
    check_case<std::int64_t>(c, Dist::uniform, 0, 0, dist);
  }
}

TEST_CASE("[large] ragged: the distributions at 2^21 + 5 elements (many chunks)") {
  for (const std::string& dist : bd::ragged_distributions())
    check_all<std::int32_t>(from(bd::make_ragged_segments(dist, (std::int64_t(1) << 21) + 5, 11)), dist);
}

TEST_CASE("ragged: edge cases") {
  SUBCASE("one segment of everything, odd sizes, unaligned input") {
    for (std::int64_t n : {1, 2, 15, 16, 17, 255, 4095, 4097, 40001}) {
      check_all<std::int32_t>(Segs{{0}, {n}, n, false}, "one segment n=" + std::to_string(n), 1);
      check_all<std::int64_t>(Segs{{0}, {n}, n, false}, "one segment n=" + std::to_string(n), 0);
    }
  }
  SUBCASE("a segment inside the array, with elements before and after that no segment covers") {
    check_all<std::int32_t>(Segs{{5}, {70000}, 70011, false}, "inner segment", 3);
  }
  SUBCASE("empty segments, end < begin counts as empty, gaps") {
    check_all<std::int32_t>(Segs{{0, 3, 3, 10, 9, 20, 4100}, {3, 3, 2, 17, 9, 4099, 9000}, 9007, false}, "empties");
    check_all<std::int32_t>(Segs{{7, 7}, {7, 1}, 9, false}, "only empty segments");
  }
  SUBCASE("CSR row pointers (p, p + 1), rows of 0 … 40 elements") {
    std::vector<std::int64_t> p{0};
    for (int r = 0; r < 3000; ++r) p.push_back(p.back() + (r * 7919) % 41);
    Segs c{std::vector<std::int64_t>(p.begin(), p.end() - 1), std::vector<std::int64_t>(p.begin() + 1, p.end()),
           p.back(), false};
    check_all<std::int32_t>(c, "csr");
  }
  SUBCASE("segments of one element, and lengths 1 … 40 in turn") {
    Segs ones, mixed;
    for (int i = 0; i < 5000; ++i) {
      ones.b.push_back(i);
      ones.e.push_back(i + 1);
    }
    ones.n = 5000;
    for (std::int64_t at = 0, len = 1; at < 30000; at += len, len = len % 40 + 1) {
      mixed.b.push_back(at);
      mixed.e.push_back(at + len);
      mixed.n = at + len;
    }
    check_all<std::int32_t>(ones, "length 1", 1);
    check_all<std::int32_t>(mixed, "lengths 1..40", 0);
  }
  SUBCASE("overlapping segments (reduce only) and unordered ones") {
    Segs c{{100, 0, 50, 0, 3000, 10}, {200, 5000, 60, 1, 2000, 4096}, 5000, true};
    check_all<std::int32_t>(c, "overlapping");
    check_all<std::int64_t>(Segs{{40, 0}, {50, 40}, 60, false}, "unordered, not overlapping (scans too)");
  }
}

// Ordered segments of lengths 1 … 40 in turn over about n elements, each starting where the last ends.
Segs lengths_1_to_40(std::int64_t n) {
  Segs c;
  for (std::int64_t at = 0, len = 1; at + len <= n; at += len, len = len % 40 + 1) {
    c.b.push_back(at);
    c.e.push_back(at + len);
    c.n = at + len;
  }
  return c;
}

// The same lengths, each segment followed by a gap of 0 … 3 elements (the last gap at the array's end).
Segs lengths_1_to_40_with_gaps(std::int64_t n) {
  Segs c;
  for (std::int64_t at = 0, len = 1, k = 0; at + len <= n; at += len + k % 4, len = len % 40 + 1, ++k) {
    c.b.push_back(at);
    c.e.push_back(at + len);
    c.n = at + len + k % 4;
  }
  return c;
}

TEST_CASE("ragged: out of order far from the ends, where only the walk reads the offsets") {
  const Segs base = lengths_1_to_40(300001);
  const std::size_t mid = base.b.size() / 2, late = base.b.size() - 40;
  for (std::size_t at : {std::size_t(1), std::size_t(5000), mid, late}) {
    Segs swapped = base, overlap = base, nested = base;
    std::swap(swapped.b[at], swapped.b[at + 1]);
    std::swap(swapped.e[at], swapped.e[at + 1]);
    overlap.e[at] = overlap.e[at + 1];  // runs over the next one
    overlap.overlapping = true;
    nested.b[at] = nested.b[at + 3] + 1;  // a segment inside a later one
    nested.e[at] = nested.b[at] + 1;
    nested.overlapping = true;
    check_case<std::int32_t>(swapped, Dist::integers, 0, 0, "two segments swapped at " + std::to_string(at));
    check_case<std::int32_t>(overlap, Dist::integers, 0, 0, "overlapping at " + std::to_string(at));
    check_case<std::int64_t>(nested, Dist::normal, 1, 0, "nested at " + std::to_string(at));
  }
}

// Scans take unordered segments that do not overlap. The walk finds its segments by searches that
// assume order and checks the order as it goes; whatever it misses, no store may reach a gap, and
// the fallback must write every segment. Gaps of 0 … 3 elements, over a hundred chunks of the walk.
TEST_CASE("ragged: unordered segments with gaps far from the ends, scans too") {
  const Segs base = lengths_1_to_40_with_gaps(400000);
  const std::size_t ns = base.b.size(), mid = ns / 2, late = ns - 40;
  auto move = [&](std::size_t from, std::size_t to) {  // segment `from` moved to index `to`
    Segs c = base;
    const std::int64_t b = c.b[from], e = c.e[from];
    c.b.erase(c.b.begin() + from);
    c.e.erase(c.e.begin() + from);
    c.b.insert(c.b.begin() + to, b);
    c.e.insert(c.e.begin() + to, e);
    return c;
  };
  check_case<std::int32_t>(base, Dist::integers, 0, 0, "ordered, with gaps");
  for (std::size_t at : {std::size_t(1), std::size_t(5000), mid, late}) {
    Segs swapped = base;
    std::swap(swapped.b[at], swapped.b[at + 1]);
    std::swap(swapped.e[at], swapped.e[at + 1]);
    check_case<std::int32_t>(swapped, Dist::integers, 0, 0, "two segments swapped at " + std::to_string(at));
  }
  check_case<std::int32_t>(move(mid, ns - 1), Dist::integers, 0, 0, "a middle segment listed last");
  check_case<std::int64_t>(move(ns - 1, 0), Dist::normal, 1, 0, "the last segment listed first");
  check_case<std::int32_t>(move(ns - 2, mid), Dist::integers, 0, 0, "a segment near the end listed in the middle");
  check_case<std::int32_t>(move(3, late), Dist::integers, 0, 0, "a segment near the start listed near the end");
}

// The walks read whole tiles whatever the segments, gaps included: what they read there must never
// reach a result (each segment's sums restart at its head).
TEST_CASE("ragged: NaN and infinities outside every segment never reach a result") {
  const Segs with_empty = from(bd::make_ragged_segments("with_empty", (std::int64_t(1) << 16) + 1237, 3));
  const Segs small_gaps = lengths_1_to_40_with_gaps(70000);
  for (Dist d : {Dist::integers, Dist::normal}) {
    check_case<std::int32_t>(with_empty, d, 0, 0, "with_empty", true);
    check_case<std::int64_t>(small_gaps, d, 1, 0, "gaps of 0-3", true);
    check_case<std::int32_t>(Segs{{5}, {70000}, 70011, false}, d, 3, 0, "inner segment", true);
    check_case<std::int32_t>(Segs{{0, 3, 3, 10, 9, 20, 4100}, {3, 3, 2, 17, 9, 4099, 9000}, 9007, false}, d, 0, 0,
                             "empties", true);
  }
}

TEST_CASE("ragged: many empty segments at the ends, empty ones anywhere") {
  const Segs base = lengths_1_to_40(100003);
  for (std::int64_t count : {1000, 40000}) {  // 40000: more than the ends kernel reads from an end
    Segs lead, trail;
    lead.n = trail.n = base.n + 10;
    for (std::int64_t i = 0; i < count; ++i) lead.b.push_back(3 * i / count), lead.e.push_back(0);  // empty: 0, 1, 2
    for (std::size_t s = 0; s < base.b.size(); ++s) {
      lead.b.push_back(base.b[s] + 5), lead.e.push_back(base.e[s] + 5);
      trail.b.push_back(base.b[s]), trail.e.push_back(base.e[s]);
    }
    // empty, past the array's end (nothing may be read there)
    for (std::int64_t i = 0; i < count; ++i) trail.b.push_back(base.n + i / 1000), trail.e.push_back(base.n);
    const std::int64_t keep = lead.b[count / 2];
    lead.b[count / 2] = 7;  // out of order among the leading empty ones: 7 > 2
    check_all<std::int32_t>(lead, "leading empty segments, one out of order, count=" + std::to_string(count));
    lead.b[count / 2] = keep;
    check_all<std::int32_t>(lead, "leading empty segments, count=" + std::to_string(count));
    check_all<std::int64_t>(trail, "trailing empty segments, count=" + std::to_string(count), 1);
  }
  Segs holes = base;  // every 7th segment empty (begin = end, or end < begin)
  for (std::size_t s = 3; s < holes.b.size(); s += 7) holes.e[s] = s % 2 ? holes.b[s] : holes.b[s] - 1;
  check_all<std::int32_t>(holes, "every 7th segment empty");
}

// The walks find each tile's first and last segment among empty ones too: runs of empty segments
// longer than a block has threads, at a 4096-element block tile's start and one element before a
// tile's end, and an empty segment in the middle whose begin lies past the array (CUB reads nothing
// of an empty segment, whatever its begin).
TEST_CASE("ragged: runs of empty segments at tile edges, an empty one that begins past the array") {
  Segs c;
  std::int64_t at = 0, len = 1;
  auto seg = [&](std::int64_t b, std::int64_t e) { c.b.push_back(b), c.e.push_back(e); };
  auto fill_to = [&](std::int64_t to) {  // lengths 1 … 40 in turn, the last one cut at `to`
    for (; at < to; len = len % 40 + 1) seg(at, std::min(at + len, to)), at = std::min(at + len, to);
  };
  fill_to(2 * 4096);
  for (int i = 0; i < 1000; ++i) seg(at, at);
  fill_to(3 * 4096 - 1);
  for (int i = 0; i < 700; ++i) seg(at, at);
  fill_to(20011);
  seg(1000000000, 0);
  fill_to(60000);
  c.n = 60003;
  check_all<std::int32_t>(c, "runs of empty segments, one beginning past the array");
  check_all<std::int64_t>(c, "runs of empty segments, one beginning past the array", 1);
}

TEST_CASE("ragged: zero segments is success with nothing written; invalid arguments") {
  tcu::DeviceBuffer<float> out(4);
  tcu::DeviceBuffer<int> off(4);
  tcu::DeviceBuffer<__half> in(4);
  tcu::poison_device(out.data(), out.bytes());
  const int* no = nullptr;
  CHECK(tcu::DeviceSegmentedReduce::Sum(in.data(), out.data(), 0, no, no) == cudaSuccess);
  CHECK(tcu::DeviceSegmentedScan::InclusiveSum(in.data(), out.data(), 0, off.data(), off.data()) == cudaSuccess);
  CHECK(tcu::DeviceSegmentedReduce::Sum(in.data(), out.data(), -1, off.data(), off.data()) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedReduce::Sum(in.data(), out.data(), 2, no, off.data()) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedScan::ExclusiveSum(in.data(), out.data(), 2, off.data(), no) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedScan::ExclusiveSum(in.data(), reinterpret_cast<float*>(out.data()) + 0, 2,
                                               reinterpret_cast<const int*>(reinterpret_cast<const char*>(off.data()) + 2),
                                               off.data()) == cudaErrorInvalidValue);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  for (float f : to_host(out.data(), 4)) CHECK(std::isnan(f));
}

TEST_CASE("ragged: a non-blocking stream, and the same bits run after run") {
  cudaStream_t stream;
  TCU_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const bd::RaggedSegments r = bd::make_ragged_segments("zipf", (std::int64_t(1) << 18) + 3, 5);
  check_case<std::int32_t>(from(r), Dist::normal, 1, stream, "zipf on a non-blocking stream");
  const std::int64_t n = r.n, ns = r.num_segments();
  tcu::DeviceBuffer<__half> in(n + 1);
  tcu::fill_device(in.data() + 1, n, Dist::normal, kSeed, stream);
  const std::vector<std::int32_t> hb(r.begin.begin(), r.begin.end()), he(r.end.begin(), r.end.end());
  tcu::DeviceBuffer<std::int32_t> db = to_device(hb), de = to_device(he);
  tcu::DeviceBuffer<float> a(n), b(n);
  for (int rep = 0; rep < 2; ++rep) {
    tcu::DeviceBuffer<float>& o = rep == 0 ? a : b;
    tcu::poison_device(o.data(), o.bytes(), stream);
    TCU_CUDA_CHECK(tcu::DeviceSegmentedScan::InclusiveSum(in.data() + 1, o.data(), ns, db.data(), de.data(), stream));
  }
  TCU_CUDA_CHECK(cudaStreamSynchronize(stream));
  CHECK(std::memcmp(to_host(a.data(), n).data(), to_host(b.data(), n).data(), n * 4) == 0);
  for (int rep = 0; rep < 2; ++rep)
    TCU_CUDA_CHECK(tcu::DeviceSegmentedReduce::Sum(in.data() + 1, (rep == 0 ? a : b).data(), ns, db.data(), de.data(),
                                                   stream));
  TCU_CUDA_CHECK(cudaStreamSynchronize(stream));
  CHECK(std::memcmp(to_host(a.data(), ns).data(), to_host(b.data(), ns).data(), ns * 4) == 0);
  TCU_CUDA_CHECK(cudaStreamDestroy(stream));
}

// Past 2^31 elements with int64 offsets: integer inputs (exact), four segments, one of them
// crossing 2^31; the reference is computed from the generator while streaming the output back.
TEST_CASE("[large] ragged: n = 2^31 + 5 with int64 offsets, exact") {
  const std::int64_t n = (std::int64_t(1) << 31) + 5;
  std::size_t free_b = 0, total_b = 0;
  TCU_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < static_cast<std::size_t>(n) * 6 + (std::size_t(1) << 30)) {
    MESSAGE("not enough device memory for n = " << n);
    return;
  }
  const std::vector<std::int64_t> hb{0, 1000, (std::int64_t(1) << 31) - 77, (std::int64_t(1) << 31) + 1};
  const std::vector<std::int64_t> he{1000, (std::int64_t(1) << 31) - 80, (std::int64_t(1) << 31) + 1, n};
  tcu::DeviceBuffer<std::int64_t> db = to_device(hb), de = to_device(he);
  tcu::DeviceBuffer<__half> in(static_cast<std::size_t>(n));
  tcu::fill_device(in.data(), static_cast<std::size_t>(n), Dist::integers, kSeed);
  tcu::DeviceBuffer<float> out(static_cast<std::size_t>(n));
  tcu::poison_device(out.data(), out.bytes());
  TCU_CUDA_CHECK(tcu::DeviceSegmentedScan::InclusiveSum(in.data(), out.data(), 4, db.data(), de.data()));
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  constexpr std::int64_t kPiece = std::int64_t(1) << 24;
  std::vector<float> got(kPiece);
  std::int64_t prefix = 0, bad = 0, gap_written = 0, seg = 0;
  std::vector<std::int64_t> sums(4, 0);
  for (std::int64_t base = 0; base < n; base += kPiece) {
    const std::int64_t len = std::min(kPiece, n - base);
    TCU_CUDA_CHECK(cudaMemcpy(got.data(), out.data() + base, len * 4, cudaMemcpyDeviceToHost));
    for (std::int64_t i = base; i < base + len; ++i) {
      while (seg < 4 && i >= he[seg]) ++seg;
      if (seg == 4 || i < hb[seg]) {
        gap_written += !std::isnan(got[i - base]);
        continue;
      }
      if (i == hb[seg]) prefix = 0;
      prefix += static_cast<std::int64_t>(tcu::sample_value(Dist::integers, kSeed, i));
      sums[seg] = prefix;
      bad += static_cast<double>(got[i - base]) != static_cast<double>(prefix);
    }
  }
  CHECK(bad == 0);
  CHECK(gap_written == 0);
  TCU_CUDA_CHECK(tcu::DeviceSegmentedReduce::Sum(in.data(), out.data(), 4, db.data(), de.data()));
  const std::vector<float> r = to_host(out.data(), 4);
  for (int s = 0; s < 4; ++s) CHECK(static_cast<double>(r[s]) == static_cast<double>(sums[s]));
}

// int32 offsets at the top of their range: the covered range ending 5000 elements short of
// 2^31 - 1, and at it; integer inputs, exact. The scan is checked in three windows: the first
// segment, the middle of the long gap (untouched), and everything from the last segments on.
TEST_CASE("[large] ragged: int32 offsets up to 2^31 - 1, exact") {
  const std::int64_t n = INT32_MAX;
  std::size_t free_b = 0, total_b = 0;
  TCU_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < static_cast<std::size_t>(n) * 6 + (std::size_t(1) << 30)) {
    MESSAGE("not enough device memory for n = " << n);
    return;
  }
  tcu::DeviceBuffer<__half> in(static_cast<std::size_t>(n));
  tcu::fill_device(in.data(), static_cast<std::size_t>(n), Dist::integers, kSeed);
  tcu::DeviceBuffer<float> scan(static_cast<std::size_t>(n));
  for (const std::int64_t top : {n - 5000, n}) {
    CAPTURE(top);
    // a segment at the front, a gap of ~2^31, then segments of 997 (gaps of 3) up to `top`
    std::vector<std::int32_t> hb{3}, he{1003};
    for (std::int64_t p = top - (std::int64_t(1) << 21); p + 997 <= top; p += 1000)
      hb.push_back(static_cast<std::int32_t>(p)), he.push_back(static_cast<std::int32_t>(p + 997));
    hb.push_back(he.back()), he.push_back(static_cast<std::int32_t>(top));  // the last ends at top
    const std::int64_t ns = static_cast<std::int64_t>(hb.size());
    tcu::DeviceBuffer<std::int32_t> db = to_device(hb), de = to_device(he);
    tcu::DeviceBuffer<float> out(static_cast<std::size_t>(ns));
    tcu::poison_device(out.data(), out.bytes());
    TCU_CUDA_CHECK(tcu::DeviceSegmentedReduce::Sum(in.data(), out.data(), ns, db.data(), de.data()));
    const std::vector<float> got = to_host(out.data(), static_cast<std::size_t>(ns));
    std::int64_t bad = 0;
    for (std::int64_t s = 0; s < ns; ++s) {
      std::int64_t sum = 0;
      for (std::int64_t i = hb[s]; i < he[s]; ++i)
        sum += static_cast<std::int64_t>(tcu::sample_value(Dist::integers, kSeed, i));
      bad += static_cast<double>(got[s]) != static_cast<double>(sum);
    }
    CHECK(bad == 0);

    tcu::poison_device(scan.data(), scan.bytes());
    TCU_CUDA_CHECK(tcu::DeviceSegmentedScan::InclusiveSum(in.data(), scan.data(), ns, db.data(), de.data()));
    TCU_CUDA_CHECK(cudaDeviceSynchronize());
    std::int64_t scan_bad = 0, gap_written = 0;
    const std::int64_t windows[3][2] = {{0, 2000}, {n / 2, n / 2 + 4096}, {hb[1] - 16, n}};
    for (const auto& w : windows) {
      std::vector<float> part(static_cast<std::size_t>(w[1] - w[0]));
      TCU_CUDA_CHECK(cudaMemcpy(part.data(), scan.data() + w[0], part.size() * 4, cudaMemcpyDeviceToHost));
      std::int64_t prefix = 0;
      for (std::int64_t i = w[0]; i < w[1]; ++i) {  // each window starts in a gap
        const auto it = std::upper_bound(hb.begin(), hb.end(), static_cast<std::int32_t>(i));
        const std::int64_t sg = (it - hb.begin()) - 1;
        const float v = part[static_cast<std::size_t>(i - w[0])];
        if (sg < 0 || i >= he[sg]) {
          gap_written += !std::isnan(v);
          continue;
        }
        if (i == hb[sg]) prefix = 0;
        prefix += static_cast<std::int64_t>(tcu::sample_value(Dist::integers, kSeed, i));
        scan_bad += static_cast<double>(v) != static_cast<double>(prefix);
      }
    }
    CHECK(scan_bad == 0);
    CHECK(gap_written == 0);
  }
}
