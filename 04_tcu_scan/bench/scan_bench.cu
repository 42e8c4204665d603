// The measuring and checking driver (scan_bench.hpp).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "04_tcu_scan/bench/scan_bench.hpp"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "common/segments.hpp"
#include "common/throughput.hpp"

namespace tcu::bench::scan {

const char* out_type_name(OutType t) { return t == OutType::fp16 ? "fp16" : "fp32"; }

const std::vector<std::string>& baseline_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = {"thrust_scan_by_key", "cub_scan_by_key", "cub_warp_scan", "cub_block_scan"};
    if (cub_segmented_scan_available()) v.emplace_back("cub_segmented_scan");
    return v;
  }();
  return names;
}

const std::vector<std::string>& whole_array_baseline_names() {
  static const std::vector<std::string> names = {"cub_device_scan"};
  return names;
}

const std::vector<std::string>& variant_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (ScanAlgorithm a : all_scan_algorithms()) v.emplace_back(scan_algorithm_name(a));
    v.emplace_back(scan_algorithm_name(ScanAlgorithm::automatic));
    for (const std::string& b : baseline_names()) v.push_back(b);
    for (const std::string& b : whole_array_baseline_names()) v.push_back(b);
    return v;
  }();
  return names;
}

bool is_tcu_variant(const std::string& name) { return parse_scan_algorithm(name).has_value(); }

bool is_whole_array_only(const std::string& name) {
  const std::vector<std::string>& w = whole_array_baseline_names();
  return std::find(w.begin(), w.end(), name) != w.end();
}

bool variant_supports(const std::string& name, std::int64_t segment_size) {
  const std::optional<ScanAlgorithm> a = parse_scan_algorithm(name);
  return !a || scan_algorithm_supports(*a, segment_size);
}

template <class OutT>
void run_variant(const std::string& name, bool inclusive, const __half* d_in, OutT* d_out, std::int64_t num_segments,
                 std::int64_t segment_size, Scratch& scratch, cudaStream_t stream) {
  if (const std::optional<ScanAlgorithm> algo = parse_scan_algorithm(name)) {
    TCU_CUDA_CHECK(
        detail::scan::segmented_scan_sum(*algo, inclusive, d_in, d_out, num_segments, segment_size, stream));
  } else if (name == "thrust_scan_by_key") {
    thrust_scan_by_key(d_in, d_out, num_segments, segment_size, inclusive, stream);
  } else if (name == "cub_scan_by_key") {
    cub_scan_by_key(d_in, d_out, num_segments, segment_size, inclusive, scratch, stream);
  } else if (name == "cub_warp_scan") {
    cub_warp_scan(d_in, d_out, num_segments, segment_size, inclusive, stream);
  } else if (name == "cub_block_scan") {
    cub_block_scan(d_in, d_out, num_segments, segment_size, inclusive, stream);
  } else if (name == "cub_segmented_scan") {
    cub_segmented_scan(d_in, d_out, num_segments, segment_size, inclusive, scratch, stream);
  } else if (name == "cub_device_scan") {
    cub_device_scan(d_in, d_out, num_segments, segment_size, inclusive, scratch, stream);
  } else {
    throw std::invalid_argument("unknown scan variant '" + name + "'");
  }
}

// Depth of the longest chain of fp32 additions (each charged 2u by tolerance_for_accumulation):
// a 16-term MMA sum is 4 levels, the hi/lo split of an operand 2 (2^-22 = 4u), every carry added
// in sequence 1.
Tolerance scan_tolerance(const std::string& name, std::int64_t segment_size, OutType out, bool integer_inputs) {
  const NumType out_t = out == OutType::fp16 ? NumType::fp16 : NumType::fp32;
  if (integer_inputs && (out == OutType::fp32 || segment_size * kIntDistBound <= 2048)) return exact_tolerance();
  const std::optional<ScanAlgorithm> parsed = parse_scan_algorithm(name);
  const bool tcu = parsed.has_value();
  ScanAlgorithm algo = parsed.value_or(ScanAlgorithm::automatic);
  if (tcu && algo == ScanAlgorithm::automatic) algo = choose_scan_algorithm(1, segment_size, out == OutType::fp32);
  const std::int64_t slabs = ceil_div(segment_size, 4096);  // block-level slabs per segment
  int depth = 0;
  if (name == "cub_device_scan" && out == OutType::fp16) {
    // InclusiveSum in fp16: CUB accumulates in the input type (thread, warp, block, tile carries)
    return tolerance_for_accumulation(32 + static_cast<int>(ceil_div(segment_size, 256)), NumType::fp16, out_t);
  }
  if (!tcu) {
    depth = 32 + static_cast<int>(ceil_div(segment_size, 256));  // library / CUB kernels: thread, warp,
  } else {                                                        // block trees and chained tiles
    switch (algo) {
      case ScanAlgorithm::scan16: depth = 4; break;
      case ScanAlgorithm::scan256: depth = 4 + 2 + 4 + 1; break;  // L·A, split, ·1, + A·U
      // The carry rides in the accumulator of all 3 MMAs that add into it (A·U, hi·1, lo·1):
      // 3 roundings of the running sum per tile. (The device run showed that 1 per tile is
      // too few: tensor cores truncate when aligning small products to a large accumulator.)
      case ScanAlgorithm::scan256n: depth = 11 + 3 * static_cast<int>(ceil_div(segment_size, 256)); break;
      case ScanAlgorithm::scan16n: depth = 4 + static_cast<int>(ceil_div(segment_size, 16)); break;
      case ScanAlgorithm::scan256_block: depth = 11 + 2 + 4 + 1 + static_cast<int>(slabs); break;
      case ScanAlgorithm::matmulscan: depth = 4 + 6 * 4 + static_cast<int>(slabs); break;
      // Scan256 inside a tile, then the fp32 carry added once per tile in sequence (+1: R + carry).
      case ScanAlgorithm::scan256_pipelined: depth = 11 + 1 + static_cast<int>(ceil_div(segment_size, 256)); break;
      // A·U, 4 shuffle levels over the row totals, + the row offset, then the carry per tile.
      case ScanAlgorithm::scan256_pipelined_shfl: depth = 4 + 4 + 1 + 1 + static_cast<int>(ceil_div(segment_size, 256)); break;
      // The walk (CUDA cores): a lane's 8 elements summed in sequence (8), 5 shuffle levels over
      // the lanes, + the carry (1), the carry added once per 256-element slice, then the lane's
      // own run up to the element (8).
      case ScanAlgorithm::scan_walk: depth = 8 + 5 + 1 + 8 + static_cast<int>(ceil_div(segment_size, 256)); break;
      default: depth = 64; break;
    }
  }
  return tolerance_for_accumulation(depth, NumType::fp32, out_t);
}

template <class OutT>
VerifyResult verify_segments(const OutT* h_out, std::int64_t seg_begin, std::int64_t seg_end, std::int64_t segment_size,
                             bool inclusive, Dist dist, std::uint64_t seed, const Tolerance& tol) {
  const std::int64_t segs = seg_end - seg_begin;
  const std::size_t n = static_cast<std::size_t>(segs * segment_size);
  std::vector<__half> x(n);
  fill_host(x.data(), n, dist, seed, static_cast<std::uint64_t>(seg_begin * segment_size));
  std::vector<double> want, magnitude;
  reference_segmented_scan(x.data(), segs, segment_size, inclusive, want, magnitude);
  return verify(h_out, want.data(), magnitude.data(), n, tol);
}

namespace {
template <class OutT>
__global__ void count_non_finite_kernel(const OutT* p, std::int64_t n, unsigned long long* count) {
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float v = static_cast<float>(p[i]);
    if (!isfinite(v)) ++local;
  }
  if (local) atomicAdd(count, local);
}
}  // namespace

template <class OutT>
std::int64_t count_non_finite(const OutT* d_out, std::int64_t n, cudaStream_t stream) {
  DeviceBuffer<unsigned long long> d_count(1);
  TCU_CUDA_CHECK(cudaMemsetAsync(d_count.data(), 0, sizeof(unsigned long long), stream));
  if (n > 0) {
    count_non_finite_kernel<<<1024, 256, 0, stream>>>(d_out, n, d_count.data());
    TCU_CHECK_LAUNCH();
  }
  unsigned long long h = 0;
  TCU_CUDA_CHECK(cudaMemcpyAsync(&h, d_count.data(), sizeof h, cudaMemcpyDeviceToHost, stream));
  TCU_CUDA_CHECK(cudaStreamSynchronize(stream));
  return static_cast<std::int64_t>(h);
}

namespace {

// Check a whole run cheaply at 2^28: every element written and finite (outputs were poisoned),
// plus eight windows of whole segments (first, last and spread between) against FP64.
template <class OutT>
VerifyResult check_run(const OutT* d_out, std::int64_t num_segments, std::int64_t segment_size, bool inclusive,
                       Dist dist, std::uint64_t seed, const Tolerance& tol) {
  VerifyResult all;
  const std::int64_t bad = count_non_finite(d_out, num_segments * segment_size);
  // A segment longer than this is checked on its first kPrefixChecked elements: their prefix
  // sums depend on nothing after them, and an FP64 reference of a whole 2^28-element segment
  // costs the CPU a minute and a half per row.
  constexpr std::int64_t kPrefixChecked = std::int64_t(1) << 22;
  if (segment_size > kPrefixChecked) {
    std::vector<OutT> h(static_cast<std::size_t>(kPrefixChecked));
    TCU_CUDA_CHECK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(OutT), cudaMemcpyDeviceToHost));
    all = verify_segments(h.data(), 0, 1, kPrefixChecked, inclusive, dist, seed, tol);
    all.non_finite += static_cast<std::size_t>(bad);
    all.pass = all.mismatches == 0 && all.non_finite == 0;
    return all;
  }
  const std::int64_t window = std::max<std::int64_t>(1, std::min<std::int64_t>(num_segments, 32768 / segment_size));
  constexpr int kWindows = 8;
  for (int w = 0; w < kWindows; ++w) {
    const std::int64_t first = (num_segments - window) * w / (kWindows - 1);
    std::vector<OutT> h(static_cast<std::size_t>(window * segment_size));
    TCU_CUDA_CHECK(cudaMemcpy(h.data(), d_out + first * segment_size, h.size() * sizeof(OutT), cudaMemcpyDeviceToHost));
    const VerifyResult r = verify_segments(h.data(), first, first + window, segment_size, inclusive, dist, seed, tol);
    all.count += r.count;
    all.mismatches += r.mismatches;
    all.non_finite += r.non_finite;
    all.max_rel_err = std::max(all.max_rel_err, r.max_rel_err);
    all.max_abs_err = std::max(all.max_abs_err, r.max_abs_err);
  }
  all.non_finite += static_cast<std::size_t>(bad);
  all.pass = all.mismatches == 0 && all.non_finite == 0;
  return all;
}

template <class OutT>
SweepRow measure(const std::string& name, const SweepConfig& cfg, const __half* d_in, OutT* d_out,
                 std::int64_t segment_size, double copy_gb_per_s, Scratch& scratch) {
  SweepRow row;
  row.algo = name;
  row.out_type = sizeof(OutT) == 2 ? OutType::fp16 : OutType::fp32;
  row.segment_size = segment_size;
  const std::int64_t segs = cfg.n / segment_size;
  row.n = segs * segment_size;
  // Bytes moved: 2 read and sizeof(OutT) written per element, as the copy probe counts them.
  const double bytes = static_cast<double>(row.n) * (sizeof(__half) + sizeof(OutT));
  auto pct = [&](double ms) { return copy_gb_per_s > 0 ? 100.0 * bytes / (ms * 1e6) / copy_gb_per_s : 0.0; };
  const bool checkable = row.out_type == OutType::fp32 || segment_size <= kFp16CheckedSegment;
  if (cfg.verify && checkable) {
    poison_device(d_out, static_cast<std::size_t>(row.n) * sizeof(OutT));
    run_variant(name, cfg.inclusive, d_in, d_out, segs, segment_size, scratch);
    TCU_CUDA_CHECK(cudaDeviceSynchronize());
    const VerifyResult r = check_run(d_out, segs, segment_size, cfg.inclusive, cfg.dist, cfg.seed,
                                     scan_tolerance(name, segment_size, row.out_type, cfg.dist == Dist::integers));
    row.verified = true;
    row.pass = r.pass;
    row.max_rel_err = r.max_rel_err;
  }
  auto work = [&](cudaStream_t s) { run_variant(name, cfg.inclusive, d_in, d_out, segs, segment_size, scratch, s); };
  // One probe run first: far below the ceiling, 3 runs are enough, or the probe alone.
  std::optional<TimingStats> once;
  TimingConfig timing = cfg.timing;
  if (cfg.shorten_slow) {
    const TimingStats probe = time_on_device(work, TimingConfig{0, 1});
    if (pct(probe.median_ms) < kSlowPct) {
      if (probe.median_ms > kOnceMs) once = probe;
      else timing = TimingConfig{0, std::min(timing.repeat, 3)};
    }
  }
  const TimingStats t = once ? *once : time_on_device(work, timing);
  row.ms = t.median_ms;
  row.gelem_per_s = row.n / (row.ms * 1e6);
  row.pct_of_copy_bw = pct(row.ms);
  row.pct_of_effective_bw = row.pct_of_copy_bw;  // the copy probe counts read + write bytes too
  return row;
}

bool wanted(const SweepConfig& cfg, const std::string& name) {
  if (!cfg.baselines_only.empty()) {
    if (is_tcu_variant(name)) return false;
    if (cfg.baselines_only != "all" && name.rfind(cfg.baselines_only + "_", 0) != 0) return false;
  }
  return cfg.algo == "all" || cfg.algo == name;
}

}  // namespace

std::vector<SweepRow> run_sweep(const SweepConfig& cfg, double copy_gb_per_s) {
  std::vector<std::string> names;
  for (const std::string& v : variant_names())
    if (wanted(cfg, v)) names.push_back(v);
  DeviceBuffer<__half> d_in(static_cast<std::size_t>(cfg.n));
  DeviceBuffer<float> d_out(static_cast<std::size_t>(cfg.n));  // also holds the fp16 outputs
  fill_device(d_in.data(), static_cast<std::size_t>(cfg.n), cfg.dist, cfg.seed);
  Scratch scratch;
  // The whole-array point (one segment of n elements) is for the device-wide rows: the API's
  // choice, cub::DeviceScan and the by-key scans. Warp- and block-per-segment algorithms would
  // walk 2^28 elements with one warp or block (Scan16N: tens of seconds a run), which teaches
  // nothing the 2^16 point does not.
  auto whole_array_row = [](const std::string& v) {
    return v == "auto" || is_whole_array_only(v) || v == "thrust_scan_by_key" || v == "cub_scan_by_key" ||
           v == "cub_latest_scan_by_key";
  };
  // A variant asked for by name at one segment size runs there even past that limit: the user
  // chose the cost.
  const bool one_named_run = cfg.algo != "all" && cfg.segment_sizes.size() == 1;
  auto runs_at = [&](const std::string& v, std::int64_t s) {
    if (s > cfg.n || !variant_supports(v, s)) return false;
    if (is_whole_array_only(v)) return cfg.n / s == 1;
    return one_named_run || !(cfg.n / s == 1 && s > 65536 && !whole_array_row(v));
  };
  // With both output types asked for (the sweep), fp16 outputs only where they can hold the sums
  // (segments up to kFp16CheckedSegment): past it the prefix sums of this data leave fp16's range,
  // and a row could be neither checked nor compared. Asked for alone (--out fp16), it is timed.
  auto out_type_runs_at = [&cfg](OutType ot, std::int64_t s) {
    return ot == OutType::fp32 || s <= kFp16CheckedSegment || cfg.out_types.size() == 1;
  };
  int total = 0;
  for (std::int64_t s : cfg.segment_sizes)
    for (const std::string& v : names)
      for (OutType ot : cfg.out_types) total += runs_at(v, s) && out_type_runs_at(ot, s) ? 1 : 0;
  bool fp16_left_out = false;
  Progress progress("segmented scan sweep", total, cfg.progress);
  std::vector<SweepRow> rows;
  std::map<std::string, std::string> skipped;  // variant → sizes it does not take
  for (std::int64_t s : cfg.segment_sizes) {
    if (s > cfg.n) continue;
    for (const std::string& v : names)
      if (!variant_supports(v, s)) skipped[v] += (skipped[v].empty() ? "" : ", ") + std::to_string(s);
    for (OutType ot : cfg.out_types) {
      if (!out_type_runs_at(ot, s)) {
        fp16_left_out = true;
        continue;
      }
      std::vector<SweepRow> group;
      for (const std::string& v : names) {
        if (!runs_at(v, s)) continue;
        progress.step(v + " " + out_type_name(ot) + " segment " + std::to_string(s));
        group.push_back(ot == OutType::fp16
                            ? measure(v, cfg, d_in.data(), reinterpret_cast<__half*>(d_out.data()), s, copy_gb_per_s,
                                      scratch)
                            : measure(v, cfg, d_in.data(), d_out.data(), s, copy_gb_per_s, scratch));
      }
      double thrust_ms = 0;
      for (const SweepRow& r : group)
        if (r.algo == "thrust_scan_by_key") thrust_ms = r.ms;
      for (SweepRow& r : group) r.speedup_vs_thrust = thrust_ms > 0 ? thrust_ms / r.ms : 0.0;
      rows.insert(rows.end(), group.begin(), group.end());
    }
  }
  if (cfg.progress && fp16_left_out)
    std::cerr << "note: fp16 outputs are left out of segments longer than " << kFp16CheckedSegment
              << " (their prefix sums can pass 65504, fp16's largest value)\n";
  if (cfg.progress)
    for (const auto& [v, sizes] : skipped)
      std::cerr << "note: " << v << " skipped at segment sizes " << sizes << " (see scan_algorithm_supports)\n";
  return rows;
}

Table csv_table(const std::vector<SweepRow>& rows) {
  Table t(std::vector<Column>{{"algo"}, {"out_type"}, {"segment_size"}, {"n"}, {"ms", "%.4f"}, {"gelem_per_s", "%.1f"},
                              {"pct_of_copy_bw", "%.1f"}, {"pct_of_effective_bw", "%.1f"}, {"max_rel_err", "%.3g"},
                              {"pass"}});
  for (const SweepRow& r : rows)
    t.add_row({r.algo, std::string(out_type_name(r.out_type)), r.segment_size, r.n, r.ms, r.gelem_per_s,
               r.pct_of_copy_bw, r.pct_of_effective_bw, r.max_rel_err,
               std::string(r.verified ? (r.pass ? "PASS" : "FAIL") : "not verified")});
  return t;
}

Table text_table(const std::vector<SweepRow>& rows) {
  Table t(std::vector<Column>{{"algo"}, {"out"}, {"segment"}, {"n"}, {"ms", "%.4f"}, {"G elem/s", "%.1f"},
                              {"% copy", "%.1f"}, {"x thrust", "%.2f"}, {"max rel err", "%.2e"}, {"check"}});
  for (const SweepRow& r : rows)
    t.add_row({r.algo, std::string(out_type_name(r.out_type)), r.segment_size, r.n, r.ms, r.gelem_per_s,
               r.pct_of_copy_bw, r.speedup_vs_thrust, r.max_rel_err,
               std::string(r.verified ? (r.pass ? "PASS" : "FAIL") : "-")});
  return t;
}

Table warp_vs_block_table(const std::vector<SweepRow>& rows) {
  // TCU warp level: Scan256N, Scan16N (independent warps); TCU block level: Alg. 7, MatMulScan.
  const std::vector<std::string> cols = {"scan256n", "scan16n", "scan256_block", "matmulscan", "cub_warp_scan",
                                         "cub_block_scan"};
  std::vector<Column> header = {Column("out"), Column("segment")};
  for (const std::string& c : cols) header.emplace_back(c + " G/s", "%.1f");
  Table t(header);
  std::map<std::pair<int, std::int64_t>, std::map<std::string, double>> by;
  for (const SweepRow& r : rows) by[{static_cast<int>(r.out_type), r.segment_size}][r.algo] = r.gelem_per_s;
  for (const auto& [key, m] : by) {
    std::vector<Cell> row = {std::string(out_type_name(static_cast<OutType>(key.first))), key.second};
    for (const std::string& c : cols) {
      auto it = m.find(c);
      if (it == m.end())
        row.emplace_back(std::monostate{});
      else
        row.emplace_back(it->second);
    }
    t.add_row(row);
  }
  return t;
}

Table best_tcu_table(const std::vector<SweepRow>& rows) {
  Table t(std::vector<Column>{{"out"}, {"segment"}, {"best TCU"}, {"G elem/s", "%.1f"}, {"% copy", "%.1f"},
                              {"x thrust", "%.2f"}, {"check"}});
  std::map<std::pair<int, std::int64_t>, const SweepRow*> best;
  for (const SweepRow& r : rows) {
    if (!is_tcu_variant(r.algo) || r.algo == "auto") continue;
    auto& b = best[{static_cast<int>(r.out_type), r.segment_size}];
    if (!b || r.gelem_per_s > b->gelem_per_s) b = &r;
  }
  for (const auto& [key, r] : best)
    t.add_row({std::string(out_type_name(r->out_type)), r->segment_size, r->algo, r->gelem_per_s, r->pct_of_copy_bw,
               r->speedup_vs_thrust, std::string(r->verified ? (r->pass ? "PASS" : "FAIL") : "-")});
  return t;
}

#define TCU_SCAN_BENCH_INSTANTIATE(OutT)                                                                          \
  template void run_variant<OutT>(const std::string&, bool, const __half*, OutT*, std::int64_t, std::int64_t,     \
                                  Scratch&, cudaStream_t);                                      \
  template VerifyResult verify_segments<OutT>(const OutT*, std::int64_t, std::int64_t, std::int64_t, bool, Dist, \
                                              std::uint64_t, const Tolerance&);                                 \
  template std::int64_t count_non_finite<OutT>(const OutT*, std::int64_t, cudaStream_t);
TCU_SCAN_BENCH_INSTANTIATE(__half)
TCU_SCAN_BENCH_INSTANTIATE(float)
#undef TCU_SCAN_BENCH_INSTANTIATE

}  // namespace tcu::bench::scan
