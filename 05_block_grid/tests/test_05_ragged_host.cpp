// Chapter 05, host tests of lessons 5 and 6 (ragged segments): a tile with events of the sums and
// the join of warp chunks' parts (lesson 5); its order check raising no false alarm on ordered
// segments; a host model of a tile's flagged scan (lane scans restarting at heads, the flagged scan
// over the lanes) against a direct segmented scan, inclusive and exclusive; the block tile's marks
// (heads, off, last elements) from the offsets, walking segments from a cursor as the kernel does;
// chunks that cover the range exactly; the benchmark's offset generators; the argument checks and
// overload resolution of the offset API (no GPU needed).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "05_block_grid/bench/ragged_offsets.hpp"
#include "05_block_grid/tcu_device.cuh"

namespace bd = tcu::bench::device;

namespace {

// The host model of scan_ragged_tile (05_block_grid/kernels/09_ragged_scan.cu) on one 256-element tile:
// lane L holds elements 8L … 8L+7; returns v[e], the sum from the last head at or before e (or
// from the tile's start plus `carry`); exclusive: without element e (each run taken before its add).
std::vector<double> model_tile_scan(const std::vector<double>& x, const std::vector<bool>& head, double carry,
                                    bool exclusive = false) {
  double r[256], total[32];
  for (int l = 0; l < 32; ++l) {  // each lane's 8 elements, restarting at heads
    double s = 0;
    for (int j = 0; j < 8; ++j) {
      if (head[8 * l + j]) s = 0;
      if (exclusive) r[8 * l + j] = s;
      s += x[8 * l + j];
      if (!exclusive) r[8 * l + j] = s;
    }
    total[l] = s;
  }
  // the flagged inclusive scan of the lane totals (Hillis–Steele, as the shuffles do it)
  double inc[32];
  bool hd[32];
  for (int l = 0; l < 32; ++l) {
    inc[l] = total[l];
    hd[l] = false;
    for (int j = 0; j < 8; ++j) hd[l] = hd[l] || head[8 * l + j];
  }
  for (int d = 1; d < 32; d *= 2) {
    double ni[32];
    bool nh[32];
    for (int l = 0; l < 32; ++l) {
      ni[l] = inc[l];
      nh[l] = hd[l];
      if (l >= d) {
        if (!hd[l]) ni[l] = inc[l - d] + inc[l];
        nh[l] = hd[l] || hd[l - d];
      }
    }
    std::copy(ni, ni + 32, inc);
    std::copy(nh, nh + 32, hd);
  }
  std::vector<double> v(256);
  for (int l = 0; l < 32; ++l) {
    const double ex = l == 0 ? 0 : inc[l - 1];
    const bool ex_head = l == 0 ? false : hd[l - 1];
    bool started = false;
    for (int j = 0; j < 8; ++j) {
      started = started || head[8 * l + j];
      const double rj = r[8 * l + j];
      v[8 * l + j] = started ? rj : ex_head ? rj + ex : rj + ex + carry;
    }
  }
  return v;
}

std::vector<double> direct_scan(const std::vector<double>& x, const std::vector<bool>& head, double carry,
                                bool exclusive = false) {
  std::vector<double> v(256);
  double s = carry;
  for (int e = 0; e < 256; ++e) {
    if (head[e]) s = 0;
    if (exclusive) v[e] = s;
    s += x[e];
    if (!exclusive) v[e] = s;
  }
  return v;
}

// The marks of one block tile as mark_block_tile computes them, walking segments from `cur`.
struct Marks {
  std::vector<bool> head, off, last;
  std::int64_t following;
};
Marks model_marks(const bd::RaggedSegments& s, std::int64_t cur, std::int64_t t0, std::int64_t len, std::int64_t va,
                  std::int64_t vb) {
  Marks m{std::vector<bool>(len), std::vector<bool>(len), std::vector<bool>(len), s.num_segments()};
  for (std::int64_t e = t0; e < t0 + len; ++e) m.off[e - t0] = e < va || e >= vb;
  const std::int64_t ns = s.num_segments();
  for (std::int64_t k = cur; k < ns; ++k) {
    const std::int64_t b = s.begin[k], e = std::max(s.end[k], b);
    if (b >= t0 + len) {
      m.following = k;
      break;
    }
    if (e > b) {
      if (b >= va && b < vb) m.head[b - t0] = true;
      if (e - 1 >= va && e - 1 < vb) m.last[e - 1 - t0] = true;
    }
    const std::int64_t gap_end = std::min(k + 1 < ns ? s.begin[k + 1] : vb, vb);
    for (std::int64_t g = std::max(e, va); g < gap_end; ++g) m.off[g - t0] = true;
  }
  return m;
}

// Lesson 5's tile with events (ragged_reduce_kernel's tile_with_events), modelled: 1024 elements,
// lane L holds 32L … 32L+31. Each lane sums its elements, restarting at heads (run); a flagged
// scan over the lanes gives `before`, the lanes' sum since the last head before lane L; a segment
// ending at element `last` is run[last], plus before[L] when its head is before lane L's first
// element, plus the carry when its head is before the tile (head < 0).
struct EventTile {
  std::vector<double> run = std::vector<double>(1024), before = std::vector<double>(32);
};
EventTile model_event_tile(const std::vector<double>& x, const std::vector<bool>& head) {
  EventTile t;
  double lane_total[32];
  bool lane_head[32];
  for (int L = 0; L < 32; ++L) {
    double run = 0.0;
    lane_head[L] = false;
    for (int e = 32 * L; e < 32 * L + 32; ++e) {
      if (head[e]) run = 0.0, lane_head[L] = true;
      run += x[e];
      t.run[e] = run;
    }
    lane_total[L] = run;
  }
  double inc = 0.0;  // the flagged scan over the lanes (in order here; the shuffles give the same sums)
  for (int L = 0; L < 32; ++L) {
    t.before[L] = L == 0 ? 0.0 : inc;
    inc = lane_head[L] ? lane_total[L] : inc + lane_total[L];
  }
  return t;
}
double event_tile_sum(const EventTile& t, int head, int last, double carry) {
  const int owner = last / 32;
  double v = t.run[last];
  if (head < owner * 32) v += t.before[owner];
  return head >= 0 ? v : carry + v;
}

// Lesson 5's join of the sums, modelled element by element: each warp chunk's parts (the
// segment open at its start: its part up to the segment's end, or the whole chunk; the segment
// running on past its end: its part from its head), then the block's join in warp order and the
// finish across blocks in block order, as ragged_reduce_kernel and ragged_finish_kernel do.
struct Parts {
  double head = 0.0, tail = 0.0;
  long long tail_seg = -1;
  int state = 0;  // 0: no segment open at the start, 1: it ends in the chunk, 2: it runs through
};
std::vector<double> model_ragged_sums(const bd::RaggedSegments& s, const std::vector<double>& x, int blocks) {
  constexpr int kWarps = 8;
  constexpr std::int64_t kAlign = 1024;  // a warp's tile
  const std::int64_t ns = s.num_segments();
  std::vector<double> out(ns, 0.0);
  std::int64_t lo = INT64_MAX, hi = 0;
  for (std::int64_t k = 0; k < ns; ++k)
    if (s.end[k] > s.begin[k]) lo = std::min(lo, s.begin[k]), hi = std::max(hi, s.end[k]);
  if (hi <= lo) return out;
  const std::int64_t chunks = std::int64_t(blocks) * kWarps, t0 = lo / kAlign * kAlign;
  const std::int64_t len = ((hi - t0 + chunks - 1) / chunks + kAlign - 1) / kAlign * kAlign;
  std::vector<Parts> block_parts(blocks);
  for (int blk = 0; blk < blocks; ++blk) {
    Parts warp_parts[kWarps];
    for (int w = 0; w < kWarps; ++w) {  // one warp's chunk [c0, c1)
      const std::int64_t c0 = std::max(t0 + (blk * kWarps + w) * len, lo), c1 = std::min(c0 + len, hi);
      Parts& p = warp_parts[w];
      for (std::int64_t k = 0; k < ns && c0 < c1; ++k) {
        const std::int64_t b = s.begin[k], e = s.end[k];
        if (e <= b || b >= c1 || e <= c0) continue;
        double part = 0.0;
        for (std::int64_t i = std::max(b, c0); i < std::min(e, c1); ++i) part += x[i];
        if (b < c0) p.head = part, p.state = e <= c1 ? 1 : 2;
        else if (e > c1) p.tail = part, p.tail_seg = k;
        else out[k] = part;
      }
    }
    constexpr long long kBlockHead = -2;  // the block's join, warp by warp
    Parts bp;
    long long pending = warp_parts[0].state != 0 ? kBlockHead : -1;
    double sum = 0.0;
    for (const Parts& p : warp_parts) {
      if (p.state == 2) {
        sum += p.head;
        continue;
      }
      if (p.state == 1) {
        sum += p.head;
        if (pending == kBlockHead) bp = Parts{sum, 0.0, -1, 1};
        else if (pending >= 0) out[pending] = sum;
      }
      pending = p.tail_seg;
      sum = p.tail;
    }
    if (pending == kBlockHead) bp = Parts{sum, 0.0, -1, 2};
    else if (pending >= 0) bp.tail = sum, bp.tail_seg = pending;
    block_parts[blk] = bp;
  }
  for (int b = 0; b < blocks; ++b) {  // the finish: a tail plus the next blocks' heads, in block order
    if (block_parts[b].tail_seg < 0) continue;
    double sum = block_parts[b].tail;
    for (int i = b + 1; i < blocks; ++i) {
      sum += block_parts[i].head;
      if (block_parts[i].state == 1) break;
    }
    out[block_parts[b].tail_seg] = sum;
  }
  return out;
}

}  // namespace

TEST_CASE("the tile's flagged scan (lane scans, then the lanes) equals a segmented scan, inclusive and exclusive") {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<double> x(256);
    std::vector<bool> head(256);
    for (double& v : x) v = static_cast<double>(static_cast<int>(rng() % 9) - 4);  // integers: exact
    const int kind = trial % 4;  // no heads; heads on row starts only; a few anywhere; many anywhere
    for (int e = 0; e < 256; ++e) {
      if (kind == 1) head[e] = e % 16 == 0 && rng() % 3 == 0;
      if (kind == 2) head[e] = rng() % 40 == 0;
      if (kind == 3) head[e] = rng() % 3 == 0;
    }
    const double carry = static_cast<double>(rng() % 100) - 50;
    CHECK(model_tile_scan(x, head, carry) == direct_scan(x, head, carry));
    CHECK(model_tile_scan(x, head, carry, true) == direct_scan(x, head, carry, true));
  }
}

TEST_CASE("a block tile's marks: heads, off (gaps and outside the chunk), last elements, next cursor") {
  for (const char* dist : {"with_empty", "uniform_1_32", "one_huge_many_tiny", "fixed_100"}) {
    const bd::RaggedSegments s = bd::make_ragged_segments(dist, 50000, 9);
    constexpr std::int64_t kTile = 4096;
    const std::int64_t c0 = 1234, c1 = 40000;  // a chunk that does not start on a block tile
    // the first segment ending after c0, by binary search (ends never decrease)
    const std::int64_t first = std::upper_bound(s.end.begin(), s.end.end(), c0) - s.end.begin();
    std::int64_t cur = first > 0 ? first - 1 : 0;
    for (std::int64_t t0 = c0 / kTile * kTile; t0 < c1; t0 += kTile) {
      const std::int64_t va = std::max(t0, c0), vb = std::min(t0 + kTile, c1);
      const Marks m = model_marks(s, cur, t0, kTile, va, vb);
      for (std::int64_t e = t0; e < t0 + kTile; ++e) {  // against a direct classification of e
        bool in = false, starts = false, ends = false;
        for (std::int64_t k = 0; k < s.num_segments(); ++k) {
          if (s.begin[k] <= e && e < s.end[k]) in = true;
          if (s.end[k] > s.begin[k] && s.begin[k] == e) starts = true;
          if (s.end[k] > s.begin[k] && s.end[k] - 1 == e) ends = true;
        }
        const bool owned = e >= va && e < vb;
        INFO(dist << " element " << e);
        CHECK(m.off[e - t0] == (!owned || !in));
        CHECK(m.head[e - t0] == (owned && starts));
        CHECK(m.last[e - t0] == (owned && ends));
      }
      cur = std::max(cur, m.following - 1);
    }
  }
}

TEST_CASE("lesson 5's tile with events: run at the last element, the lanes before, the carry, equal direct sums") {
  std::mt19937_64 rng(17);
  for (int max_len : {1, 3, 17, 100, 700, 3000}) {
    for (int rep = 0; rep < 20; ++rep) {
      // segments tiling [-before_tile, 1024 + …) with gaps; the tile is elements 0 … 1023
      std::vector<double> x(1024);
      for (double& v : x) v = static_cast<double>(static_cast<int>(rng() % 9) - 4);  // integers: exact
      std::vector<bool> head(1024, false);
      std::vector<std::pair<int, int>> segs;  // [b, e) relative to the tile, b may be < 0
      int p = -static_cast<int>(rng() % 40);
      while (p < 1024) {
        const int len = 1 + static_cast<int>(rng() % max_len), gap = static_cast<int>(rng() % 3);
        segs.emplace_back(p, p + len);
        if (p >= 0) head[p] = true;
        p += len + gap;
      }
      const double carry = static_cast<double>(static_cast<int>(rng() % 50) - 25);
      const EventTile t = model_event_tile(x, head);
      for (const auto& [b, e] : segs) {
        if (e > 1024 || e <= 0) continue;  // ends after the tile, or before it
        double direct = b < 0 ? carry : 0.0;
        for (int i = std::max(b, 0); i < e; ++i) direct += x[i];
        INFO("max_len " << max_len << ", segment [" << b << ", " << e << ")");
        CHECK(event_tile_sum(t, b < 0 ? -1 : b, e - 1, carry) == direct);
      }
    }
  }
}

TEST_CASE("lesson 5's sums: warp chunks' parts joined in warp order, then in block order, equal direct sums") {
  for (const std::string& dist : bd::ragged_distributions())
    for (int blocks : {1, 3, 37}) {
      const bd::RaggedSegments s = bd::make_ragged_segments(dist, (1 << 18) + 5, 11);
      std::mt19937_64 rng(3);
      std::vector<double> x(static_cast<std::size_t>(s.n));
      for (double& v : x) v = static_cast<double>(static_cast<int>(rng() % 7) - 3);  // integers: exact
      std::vector<double> direct(s.num_segments(), 0.0);
      for (std::int64_t k = 0; k < s.num_segments(); ++k)
        for (std::int64_t i = s.begin[k]; i < s.end[k]; ++i) direct[k] += x[i];
      INFO(dist << ", " << blocks << " blocks");
      CHECK(model_ragged_sums(s, x, blocks) == direct);
    }
}

// What the two lessons' order-check models share: the search (pred false … true over [a, z): the
// first true one, z if none), the clamped end, the first and last non-empty segment (-1: none).
template <class Pred>
std::int64_t first_true(std::int64_t a, std::int64_t z, Pred pred) {
  while (a < z) {
    const std::int64_t m = a + (z - a) / 2;
    if (pred(m)) z = m;
    else a = m + 1;
  }
  return a;
}
std::int64_t clamped_end(const bd::RaggedSegments& s, std::int64_t k) { return std::max(s.begin[k], s.end[k]); }
std::pair<std::int64_t, std::int64_t> non_empty_ends(const bd::RaggedSegments& s) {
  std::int64_t first = -1, last = -1;
  for (std::int64_t k = 0; k < s.num_segments(); ++k)
    if (s.end[k] > s.begin[k]) last = k, first = first < 0 ? k : first;
  return {first, last};
}
// The ordered cases both models run on: every benchmark distribution at two sizes, as generated
// and with 30 empty segments at both ends (the trailing ones past the array).
template <class Check>
void each_ordered_case(Check check) {
  for (const std::string& dist : bd::ragged_distributions())
    for (std::int64_t n : {std::int64_t(5000), std::int64_t(200003)}) {
      bd::RaggedSegments s = bd::make_ragged_segments(dist, n, 5);
      check(s, dist + " n=" + std::to_string(n));
      for (int i = 0; i < 30; ++i) {
        s.begin.insert(s.begin.begin(), 0), s.end.insert(s.end.begin(), 0);
        s.begin.push_back(n + i), s.end.push_back(n);
      }
      check(s, dist + " n=" + std::to_string(n) + ", empty segments at both ends");
    }
}

// Lesson 5's order check, modelled on ordered segments: its warps' runs of segments must abut, or
// the call goes to the (slow) fallback. A warp's run starts at the search over its chunk's first
// element and ends at the first segment its tiles did not finish (its last tile cut at the chunk's
// end); the chunks are cut by work as weighted_chunk cuts them. A false alarm would not show in a
// GPU test's results, only in the time.
bool lesson5_runs_abut(const bd::RaggedSegments& s, int chunks) {
  const std::int64_t ns = s.num_segments();
  auto E = [&](std::int64_t k) { return clamped_end(s, k); };
  const auto [first, last] = non_empty_ends(s);
  if (first < 0) return true;  // nothing to walk
  const std::int64_t lo = s.begin[first], hi = s.end[last], kCost = 24, kTile = 1024;
  const double total = double(hi - lo) + double(kCost) * double(ns);
  auto edge = [&](std::int64_t k) -> std::int64_t {
    if (k <= 0 || k >= chunks) return k <= 0 ? lo : hi;
    const std::int64_t t = static_cast<std::int64_t>(total * double(k) / double(chunks));
    const std::int64_t j = first_true(0, ns, [&](std::int64_t k) { return s.begin[k] - lo + kCost * k >= t; });
    std::int64_t p = lo + t - kCost * j;
    if (j > 0) p = std::max(p, s.begin[j - 1]);
    p = p / kTile * kTile;
    return std::min(std::max(p, lo), hi);
  };
  std::int64_t prev_end = -1;
  for (int b = 0; b < chunks; ++b) {
    const std::int64_t c0 = edge(b), c1 = edge(b + 1);
    // the kernel's search: the first segment ending after c0, or starting at or after it
    const std::int64_t start = first_true(0, ns, [&](std::int64_t k) { return E(k) > c0 || s.begin[k] >= c0; });
    // the first segment the chunk's tiles (the last one cut at c1) did not finish
    const std::int64_t end =
        c0 < c1 ? first_true(0, ns, [&](std::int64_t k) { return !(s.begin[k] < c1 && E(k) <= c1); }) : start;
    if (b == 0 && start > first) return false;
    if (b > 0 && start != prev_end) return false;
    prev_end = end;
  }
  return prev_end > last;
}

TEST_CASE("lesson 5's order check raises no false alarm on ordered segments") {
  each_ordered_case([](const bd::RaggedSegments& s, const std::string& what) {
    for (int chunks : {1, 7, 64, 4224}) {
      INFO(what << " chunks=" << chunks);
      CHECK(lesson5_runs_abut(s, chunks));
    }
  });
}

// Lesson 6's order checks, modelled on ordered segments. Per block tile: the first segment marked
// starts by the tile's first owned element, and each one marked ends by the next one's start. Per
// chunk (array_chunk's cut): its span of segments, from the search over its first element to the
// first segment starting at or after its last tile; the spans must abut and cover the first to
// the last non-empty segment. Any failure sends the call to the fallback: a false alarm would not
// show in a GPU test's results, only in the time.
bool lesson6_checks_pass(const bd::RaggedSegments& s, int chunks) {
  const std::int64_t ns = s.num_segments();
  auto E = [&](std::int64_t k) { return clamped_end(s, k); };
  const auto [first, last] = non_empty_ends(s);
  if (first < 0) return true;  // nothing to walk
  constexpr std::int64_t kTile = 4096;
  const std::int64_t lo = s.begin[first], hi = s.end[last], t0 = lo / kTile * kTile;
  const std::int64_t len = ((hi - t0 + chunks - 1) / chunks + kTile - 1) / kTile * kTile;
  std::int64_t prev_to = -1;
  for (int b = 0; b < chunks; ++b) {
    const std::int64_t c0 = std::max(t0 + b * len, lo), c1 = std::min(t0 + (b + 1) * len, hi);
    if (c0 >= c1) break;  // the empty chunks come last
    const std::int64_t start = first_true(0, ns, [&](std::int64_t k) { return E(k) > c0 || s.begin[k] >= c0; });
    std::int64_t cur = start > 0 ? start - 1 : 0, to = cur;
    if (b == 0 ? cur > first : cur > prev_to) return false;  // the spans abut
    for (std::int64_t t = c0 / kTile * kTile; t < c1; t += kTile) {
      const std::int64_t va = std::max(t, c0);
      if (s.begin[cur] > va) return false;
      const std::int64_t next = first_true(cur, ns, [&](std::int64_t k) { return s.begin[k] >= t + kTile; });
      for (std::int64_t k = cur; k < next; ++k)
        if (k + 1 < ns && E(k) > s.begin[k + 1]) return false;
      cur = std::max(cur, next - 1);
      to = next;
    }
    prev_to = to;
  }
  return prev_to >= last;
}

TEST_CASE("lesson 6's order checks raise no false alarm on ordered segments") {
  each_ordered_case([](const bd::RaggedSegments& s, const std::string& what) {
    for (int chunks : {1, 7, 64, 528}) {
      INFO(what << " chunks=" << chunks);
      CHECK(lesson6_checks_pass(s, chunks));
    }
  });
  // two empty segments at every block tile's start (where chunks start), segments of 128 between
  bd::RaggedSegments s;
  s.n = 100000;
  for (std::int64_t at = 0; at + 128 <= s.n; at += 128) {
    for (int i = 0; i < (at % 4096 == 0 ? 2 : 0); ++i) s.begin.push_back(at), s.end.push_back(at);
    s.begin.push_back(at), s.end.push_back(at + 128);
  }
  for (int chunks : {1, 3, 12}) CHECK(lesson6_checks_pass(s, chunks));
}

TEST_CASE("chunks cover the range exactly, in whole block tiles") {
  for (std::int64_t lo : {0, 5, 4096, 123457})
    for (std::int64_t len : {1, 4095, 4097, 1000003})
      for (int chunks : {1, 3, 264, 528}) {
        const std::int64_t hi = lo + len, t0 = lo / 4096 * 4096;
        const std::int64_t clen = ((hi - t0 + chunks - 1) / chunks + 4095) / 4096 * 4096;
        std::int64_t covered = lo;
        for (int b = 0; b < chunks; ++b) {
          const std::int64_t c0 = std::max(t0 + b * clen, lo), c1 = std::min(t0 + (b + 1) * clen, hi);
          if (c0 >= c1) continue;
          CHECK(c0 == covered);
          covered = c1;
        }
        CHECK(covered == hi);
      }
}

TEST_CASE("the benchmark's offset generators") {
  const std::int64_t n = 1 << 20;
  for (const std::string& dist : bd::ragged_distributions()) {
    const bd::RaggedSegments s = bd::make_ragged_segments(dist, n, 42);
    INFO(dist);
    REQUIRE(s.num_segments() > 0);
    std::int64_t covered = 0, prev_end = 0, empties = 0, gaps = 0;
    for (std::int64_t k = 0; k < s.num_segments(); ++k) {
      CHECK(s.begin[k] >= prev_end);  // ordered, no overlap
      CHECK(s.end[k] >= s.begin[k]);
      CHECK(s.end[k] <= n);
      gaps += s.begin[k] > prev_end;
      empties += s.end[k] == s.begin[k];
      covered += s.end[k] - s.begin[k];
      prev_end = s.end[k];
    }
    CHECK(covered == s.covered);
    CHECK(bd::make_ragged_segments(dist, n, 42).begin == s.begin);  // a fixed seed, the same segments
    if (dist == "with_empty") {
      CHECK(empties > 0);
      CHECK(gaps > 0);
      CHECK(s.mean_length() == doctest::Approx(32).epsilon(0.05));
    } else {
      CHECK(empties == 0);
      CHECK(gaps == 0);
    }
    if (dist == "fixed_17") CHECK(s.max_length == 17);
    if (dist == "uniform_1_32") CHECK(s.mean_length() == doctest::Approx(16.5).epsilon(0.05));
    if (dist == "zipf") CHECK(s.max_length <= (1 << 20));
    if (dist == "one_huge_many_tiny") CHECK(s.max_length == n / 2);
  }
}

TEST_CASE("the offset API: argument checks, and an integer segment size still picks the fixed-size overload") {
  const __half* in = reinterpret_cast<const __half*>(std::uintptr_t(256));
  float* out = reinterpret_cast<float*>(std::uintptr_t(512));
  __half* hout = reinterpret_cast<__half*>(std::uintptr_t(512));
  const int* b32 = reinterpret_cast<const int*>(std::uintptr_t(1024));
  const std::int64_t* b64 = reinterpret_cast<const std::int64_t*>(std::uintptr_t(2048));
  CHECK(tcu::DeviceSegmentedReduce::Sum(in, out, -1, b32, b32) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedReduce::Sum(in, out, 0, b32, b32) == cudaSuccess);
  CHECK(tcu::DeviceSegmentedReduce::Sum(nullptr, nullptr, 0, b64, b64) == cudaSuccess);
  CHECK(tcu::DeviceSegmentedReduce::Sum(in, out, 3, static_cast<const int*>(nullptr), b32) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedReduce::Sum(in, nullptr, 3, b64, b64) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedScan::InclusiveSum(in, hout, 3, b32, reinterpret_cast<const int*>(std::uintptr_t(1026))) ==
        cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedScan::ExclusiveSum(reinterpret_cast<const __half*>(std::uintptr_t(257)), out, 3, b64,
                                               b64) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedScan::InclusiveSum(in, reinterpret_cast<float*>(std::uintptr_t(514)), 3, b32, b32) ==
        cudaErrorInvalidValue);
  // literal segment sizes: the fixed-size overloads (0 is a size here, not a null pointer)
  CHECK(tcu::DeviceSegmentedReduce::Sum(in, out, 3, 0) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedReduce::Sum(nullptr, nullptr, 0, 17) == cudaSuccess);
  CHECK(tcu::DeviceSegmentedScan::InclusiveSum(in, out, 2, -1) == cudaErrorInvalidValue);
  CHECK(tcu::DeviceSegmentedScan::ExclusiveSum(in, hout, 0, 100, cudaStream_t{}) == cudaSuccess);
  CHECK(tcu::parse_device_reduce_algorithm("ragged") == tcu::DeviceReduceAlgorithm::ragged);
  CHECK(tcu::parse_device_scan_algorithm("ragged") == tcu::DeviceScanAlgorithm::ragged);
  CHECK(tcu::device_scan_algorithm_supports(tcu::DeviceScanAlgorithm::ragged, 5, 17));
  CHECK(tcu::device_reduce_sum(tcu::DeviceReduceAlgorithm::ragged, in, out, -2, 17) == cudaErrorInvalidValue);
}
