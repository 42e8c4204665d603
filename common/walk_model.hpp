#pragma once
// Host model (FP64) of the walk on CUDA cores that chapter 03's reduction_walk and chapter 04's
// scan_walk run (docs/algorithms.md, "Segments of any size"): one warp's walk over its share of
// whole segments, lane by lane as the kernels do it — slices of 32·m elements, lane L holding
// the m consecutive elements [L·m, L·m + m), its segment head at h = (s − r) mod s, the parts A
// (before h) and B (from h), the segmented scan of the lanes (optionally looking back only as
// many lanes as a segment touches), the carry between slices and, for the sums, the slices
// without events that only add. The host tests run it over every phase of the segments against
// the slices and compare with plain sums: the index arithmetic the kernels share is checked
// without a GPU.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/tensor_core/warp_shares.hpp"

namespace tcu::model {

struct WalkOptions {
  int lane_elems = 16;           // m: 16 for the sums, 8 for the scans
  bool limit_span = true;        // the scan of the lanes looks back only as far as a segment reaches
  bool add_without_events = true;  // slices with no head or end only add (the sums)
};

// What one warp writes: sums[k] for its segments k (the reduction), and the inclusive and
// exclusive prefix of every element of its share (the scan). `writes` counts the stores to
// each segment sum and each element, so a test can check each was written exactly once.
struct WalkOutput {
  std::vector<double> sums, inclusive, exclusive;
  std::vector<int> sum_writes, element_writes;
};

inline WalkOutput make_walk_output(std::int64_t num_segments, std::int64_t segment_size) {
  const std::size_t n = static_cast<std::size_t>(num_segments * segment_size);
  return WalkOutput{std::vector<double>(static_cast<std::size_t>(num_segments), 0.0), std::vector<double>(n, 0.0),
                    std::vector<double>(n, 0.0), std::vector<int>(static_cast<std::size_t>(num_segments), 0),
                    std::vector<int>(n, 0)};
}

// One warp's walk over the segments [k0, k1) of size s (s > m) of x.
inline void walk_share(const std::vector<double>& x, std::int64_t s, std::int64_t k0, std::int64_t k1,
                       const WalkOptions& o, WalkOutput& out) {
  constexpr int kLanes = 32;
  const int m = o.lane_elems;
  const std::int64_t slice = kLanes * m, first = k0 * s, end = k1 * s;
  if (first >= end) return;
  // a lane load is a piece of 8: none wholly outside [first, end), one straddling `first` whole,
  // zeros at and past `end`
  auto value = [&](std::int64_t e) {
    const std::int64_t p = e / 8 * 8;
    if (p + 8 <= first || p >= end || e >= end) return 0.0;
    return x[static_cast<std::size_t>(e)];
  };
  const int span = o.limit_span ? static_cast<int>(std::min<std::int64_t>(kLanes, (s - 2) / m + 2)) : kLanes;
  const std::int64_t t0 = first / slice * slice;
  std::int64_t seg[kLanes], r[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    const std::int64_t p0 = t0 + l * m;
    seg[l] = p0 / s;
    r[l] = p0 - seg[l] * s;
  }
  double carry = 0.0, own[kLanes] = {};
  bool spread = false;
  for (std::int64_t t = t0; t < end; t += slice) {
    std::int64_t h[kLanes];
    double a[kLanes], b[kLanes];
    bool events = false;
    for (int l = 0; l < kLanes; ++l) {
      h[l] = r[l] == 0 ? 0 : s - r[l];
      a[l] = b[l] = 0.0;
      for (int j = 0; j < m; ++j) (j < h[l] ? a[l] : b[l]) += value(t + l * m + j);
      events = events || h[l] <= m;
    }
    if (o.add_without_events && !events) {
      for (int l = 0; l < kLanes; ++l) own[l] += a[l];
      spread = true;
    } else {
      if (spread) {
        for (int l = 0; l < kLanes; ++l) carry += own[l], own[l] = 0.0;
        spread = false;
      }
      // the segmented scan of the lanes (Hillis-Steele steps d < span, restarting at head lanes)
      double inc[kLanes];
      int head_lane[kLanes];
      for (int l = 0, last = -1; l < kLanes; ++l) {
        if (h[l] < m) last = l;
        head_lane[l] = last;
        inc[l] = h[l] < m ? b[l] : a[l];
      }
      for (int d = 1; d < kLanes && d < span; d *= 2) {
        double next[kLanes];
        for (int l = 0; l < kLanes; ++l)
          next[l] = inc[l] + (l >= d && l - d >= head_lane[l] ? inc[l - d] : 0.0);
        std::copy(next, next + kLanes, inc);
      }
      for (int l = 0; l < kLanes; ++l)
        if (head_lane[l] < 0) inc[l] += carry;
      for (int l = 0; l < kLanes; ++l) {
        const double before = l == 0 ? carry : inc[l - 1];
        if (h[l] >= 1 && h[l] <= m && seg[l] >= k0 && seg[l] < k1) {  // the open segment ends here
          out.sums[static_cast<std::size_t>(seg[l])] = before + a[l];
          ++out.sum_writes[static_cast<std::size_t>(seg[l])];
        }
        double run = before;
        for (int j = 0; j < m; ++j) {
          const std::int64_t e = t + l * m + j;
          if (j == h[l]) run = 0.0;
          const double excl = run;
          run += value(e);
          if (e >= first && e < end) {
            out.exclusive[static_cast<std::size_t>(e)] = excl;
            out.inclusive[static_cast<std::size_t>(e)] = run;
            ++out.element_writes[static_cast<std::size_t>(e)];
          }
        }
      }
      carry = inc[kLanes - 1];
    }
    for (int l = 0; l < kLanes; ++l) {  // the next slice
      seg[l] += slice / s;
      r[l] += slice % s;
      if (r[l] >= s) r[l] -= s, ++seg[l];
    }
  }
}

// The whole launch: `warps` warps, each over its share of whole segments (tc::warp_segment_share,
// as the kernels split them), on integers in [-4, 4] (every sum exact in FP64); `x` gets the input.
inline WalkOutput walk_all_shares(std::int64_t num_segments, std::int64_t s, std::int64_t warps,
                                  const WalkOptions& o, std::vector<double>& x) {
  x.resize(static_cast<std::size_t>(num_segments * s));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>((i * 7919 + 13) % 9) - 4.0;
  WalkOutput out = make_walk_output(num_segments, s);
  for (std::int64_t w = 0; w < warps; ++w) {
    const tc::WarpShare share = tc::warp_segment_share(num_segments, s, w, warps);
    walk_share(x, s, share.first_segment, share.end_segment, o, out);
  }
  return out;
}

}  // namespace tcu::model
