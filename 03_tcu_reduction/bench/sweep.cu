// The sweep (sweep.hpp): every algorithm and baseline over a list of segment sizes, timed and
// verified.
#include "03_tcu_reduction/bench/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>

#include "03_tcu_reduction/bench/baselines.cuh"
#include "03_tcu_reduction/tcu_reduction.cuh"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "common/segments.hpp"
#include "common/throughput.hpp"
#include "common/verify.hpp"

namespace tcu::bench::reduce {
namespace {

constexpr std::int64_t kWarpLevelCap = std::int64_t(1) << 16;  // 16 segments per warp: see README

bool wanted(const SegmentedOptions& opts, const SegmentedVariant& v) {
  if (!opts.baselines_only.empty()) {
    if (v.tcu) return false;
    if (opts.baselines_only != "all" && v.name.rfind(opts.baselines_only + "_", 0) != 0) return false;
  }
  return opts.only.empty() || std::find(opts.only.begin(), opts.only.end(), v.name) != opts.only.end();
}

// FP64 segment sums of the host copy of the data; sizes that are multiples of 16 are built
// from exact 16-element block sums (fast for the 2^28 sweep).
class References {
 public:
  explicit References(std::vector<__half> data) : x_(std::move(data)) {
    const std::size_t blocks = x_.size() / 16;
    block_.resize(blocks);
    block_abs_.resize(blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
      double s = 0, a = 0;  // 16 fp16 values: exact in double
      for (int i = 0; i < 16; ++i) {
        const double v = __half2float(x_[b * 16 + i]);
        s += v;
        a += std::fabs(v);
      }
      block_[b] = s;
      block_abs_[b] = a;
    }
  }
  void sums(std::int64_t ns, std::int64_t s, std::vector<double>& out, std::vector<double>& abs_out) const {
    if (s % 16 != 0) {
      reference_segmented_sum(x_.data(), ns, s, out, abs_out);
      return;
    }
    out.assign(ns, 0.0);
    abs_out.assign(ns, 0.0);
    const std::int64_t per = s / 16;
    for (std::int64_t g = 0; g < ns; ++g) {
      Fp64Sum a, b;
      for (std::int64_t k = 0; k < per; ++k) {
        a.add(block_[g * per + k]);
        b.add(block_abs_[g * per + k]);
      }
      out[g] = a.value();
      abs_out[g] = b.value();
    }
  }

 private:
  std::vector<__half> x_;
  std::vector<double> block_, block_abs_;
};

std::vector<__half> copy_to_host(const __half* d, std::size_t n) {
  std::vector<__half> h(n);
  if (n) TCU_CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(__half), cudaMemcpyDeviceToHost));
  return h;
}


}  // namespace

std::vector<SegmentedVariant> segmented_variants(CubTemp& temp, bool with_whole_array) {
  std::vector<SegmentedVariant> v;
  for (ReduceAlgorithm a : all_reduce_algorithms()) {
    if (a == ReduceAlgorithm::chained_mma_fp16_accumulate) continue;  // accuracy study only
    SegmentedVariant s;
    s.name = reduce_algorithm_name(a);
    s.algorithm = a;
    s.deterministic = !(a == ReduceAlgorithm::chained_mma_single_pass || a == ReduceAlgorithm::chained_mma_split);
    s.supports = [a](std::int64_t seg) { return reduce_algorithm_supports(a, seg); };
    if (a == ReduceAlgorithm::reduction16n_strided || a == ReduceAlgorithm::reduction16n_coalesced)
      s.max_segment = kWarpLevelCap;
    s.run = [a](const __half* in, float* out, std::int64_t ns, std::int64_t seg, cudaStream_t st) {
      return segmented_reduce_sum(a, in, out, ns, seg, st);
    };
    v.push_back(std::move(s));
  }
  SegmentedVariant autom;
  autom.name = reduce_algorithm_name(ReduceAlgorithm::automatic);  // "auto"
  autom.algorithm = ReduceAlgorithm::automatic;
  autom.run = [](const __half* in, float* out, std::int64_t ns, std::int64_t seg, cudaStream_t st) {
    return segmented_reduce_sum(in, out, ns, seg, st);
  };
  v.push_back(std::move(autom));
  for (Baseline b : available_baselines()) {
    if (baseline_whole_array_only(b) && !with_whole_array) continue;
    SegmentedVariant s;
    s.name = baseline_name(b);
    s.tcu = false;
    s.whole_array_only = baseline_whole_array_only(b);
    CubTemp* t = &temp;
    s.run = [b, t](const __half* in, float* out, std::int64_t ns, std::int64_t seg, cudaStream_t st) {
      return baseline_segmented_reduce_sum(b, *t, in, out, ns, seg, st);
    };
    v.push_back(std::move(s));
  }
  return v;
}

std::vector<std::string> segmented_variant_names() {
  CubTemp unused;  // allocates nothing until used
  std::vector<std::string> names;
  for (const SegmentedVariant& v : segmented_variants(unused, true)) names.push_back(v.name);
  return names;
}

std::vector<std::string> baseline_names() {
  std::vector<std::string> names;
  for (Baseline b : available_baselines()) names.emplace_back(baseline_name(b));
  return names;
}


int baseline_error_depth(std::int64_t s) {
  // a thread adds its 16-byte pieces (8 values each) one after the other, then a shuffle or
  // block tree (CUB's segmented reduce likewise)
  const std::int64_t tail = ceil_log2(static_cast<std::uint64_t>(std::max<std::int64_t>(s, 1))) + 8;
  const std::int64_t d = (s + 7) / 8 + tail + 8;
  return static_cast<int>(std::min<std::int64_t>(d, std::numeric_limits<int>::max() / 2));
}

Tolerance bound_tolerance(const ReduceErrorBound& b) {
  Tolerance t;
  t.rel_to_magnitude = b.rel_to_abs_sum;
  t.abs = b.abs + underflow_abs(NumType::fp32);
  t.rationale = b.rationale;
  return t;
}

Tolerance variant_tolerance(const SegmentedVariant& v, std::int64_t num_segments, std::int64_t segment_size) {
  if (v.algorithm) return bound_tolerance(reduce_error_bound(*v.algorithm, num_segments, segment_size));
  return tolerance_for_accumulation(baseline_error_depth(segment_size), NumType::fp32, NumType::fp32);
}

SegmentedReport run_segmented(const SegmentedOptions& opts, double read_gb_per_s) {
  SegmentedReport rep;
  rep.read_gb_per_s = read_gb_per_s;
  const double ceiling = read_gelem_ceiling(read_gb_per_s, sizeof(__half));
  const std::int64_t n = opts.n, off = opts.input_offset;
  DeviceBuffer<__half> input(static_cast<std::size_t>(n + off));
  fill_device(input.data(), static_cast<std::size_t>(n + off), opts.dist, opts.seed);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  const __half* d_in = input.data() + off;
  const References refs(copy_to_host(d_in, static_cast<std::size_t>(n)));

  CubTemp temp;
  std::vector<SegmentedVariant> variants = segmented_variants(temp, true);
  // Whether v runs at segment size s (n fixed): supported, not capped, one segment for the
  // whole-array baselines.
  auto runs_at = [&](const SegmentedVariant& v, std::int64_t s) {
    return s <= n && v.supports(s) && !(opts.cap_slow && v.max_segment > 0 && s > v.max_segment) &&
           !(v.whole_array_only && segment_count_for(n, s) != 1);
  };
  int total = 0;
  for (std::int64_t s : opts.segment_sizes)
    for (const SegmentedVariant& v : variants)
      if (wanted(opts, v) && runs_at(v, s)) ++total;
  Progress progress("segmented reduce", total, opts.progress);

  for (std::int64_t s : opts.segment_sizes) {
    const std::int64_t ns = segment_count_for(n, s);
    if (ns == 0) {
      rep.notes.push_back("segment size " + std::to_string(s) + " > n: skipped");
      continue;
    }
    std::vector<double> want, mag;
    if (opts.verify) refs.sums(ns, s, want, mag);
    DeviceBuffer<float> out(static_cast<std::size_t>(ns));
    std::vector<float> got(static_cast<std::size_t>(ns));
    struct Row {
      std::string name;
      double ms, rel;
      bool pass;
    };
    std::vector<Row> rows;
    double cub_ms = 0;
    for (const SegmentedVariant& v : variants) {
      if (!wanted(opts, v) || !runs_at(v, s)) continue;
      bool pass = true;
      double rel = 0;
      if (opts.verify) {
        poison_device(out.data(), out.bytes());
        TCU_CUDA_CHECK(v.run(d_in, out.data(), ns, s, 0));
        TCU_CUDA_CHECK(cudaDeviceSynchronize());
        out.copy_to_host(got.data(), got.size());
        const Tolerance tol = (opts.dist == Dist::integers) ? exact_tolerance() : variant_tolerance(v, ns, s);
        const VerifyResult r = verify(got.data(), want.data(), mag.data(), got.size(), tol);
        pass = r.pass;
        rel = r.max_rel_err;
      }
      auto work = [&](cudaStream_t st) { TCU_CUDA_CHECK(v.run(d_in, out.data(), ns, s, st)); };
      // One probe run first: a row far below the ceiling (a warp or block for a huge segment)
      // is timed 3 times, or only by the probe when that took over kOnceMs.
      std::optional<TimingStats> once;
      TimingConfig timing = opts.timing;
      if (opts.shorten_slow) {
        const TimingStats probe = time_on_device(work, TimingConfig{0, 1});
        if (percent_of(gelem_per_s(ns * s, probe.median_ms), ceiling) < kSlowPct) {
          if (probe.median_ms > kOnceMs) once = probe;
          else timing = TimingConfig{0, std::min(timing.repeat, 3)};
        }
      }
      const TimingStats t = once ? *once : time_on_device(work, timing);
      if (v.name == "cub_segmented_reduce") cub_ms = t.median_ms;
      rows.push_back({v.name, t.median_ms, rel, pass});
      rep.all_passed &= pass;
      progress.step(v.name + " @" + std::to_string(s));
    }
    // Bytes moved: the fp16 input read, one fp32 sum written per segment.
    const double bytes = static_cast<double>(ns * s) * sizeof(__half) + static_cast<double>(ns) * sizeof(float);
    for (const Row& r : rows) {
      const double g = gelem_per_s(ns * s, r.ms);
      const double eff = percent_of(gb_per_s(bytes, r.ms), read_gb_per_s);
      rep.csv.add_row({r.name, s, ns * s, r.ms, g, percent_of(g, ceiling), eff, r.rel, r.pass});
      rep.text.add_row({r.name, s, ns * s, r.ms, g, percent_of(g, ceiling), eff,
                        cub_ms > 0 ? Cell(cub_ms / r.ms) : Cell(), r.rel, r.pass});
    }
  }
  for (const SegmentedVariant& v : variants) {
    if (!wanted(opts, v)) continue;
    auto any = [&](auto pred) { return std::any_of(opts.segment_sizes.begin(), opts.segment_sizes.end(), pred); };
    if (opts.cap_slow && v.max_segment > 0 && any([&](std::int64_t s) { return s > v.max_segment && s <= n; })) {
      const std::string why = v.name + ": sizes above " + std::to_string(v.max_segment) +
                              " skipped (16 segments per warp: a few warps for the whole GPU)";
      rep.notes.push_back(why);
      if (opts.progress) std::cerr << "note: " << why << "\n";
    }
    if (any([&](std::int64_t s) { return !v.supports(s); })) {
      const std::string why = v.name + ": some sizes are outside the algorithm (see reduce_algorithm_supports)";
      rep.notes.push_back(why);
      if (opts.progress) std::cerr << "note: " << why << "\n";
    }
    if (v.whole_array_only && any([&](std::int64_t s) { return segment_count_for(n, s) != 1; }))
      rep.notes.push_back(v.name + ": one segment only (the whole-array point, segment size = n)");
  }
  return rep;
}


}  // namespace tcu::bench::reduce
