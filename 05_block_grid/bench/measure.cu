#include "05_block_grid/bench/measure.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "05_block_grid/bench/baselines.cuh"
#include "05_block_grid/tcu_device.cuh"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "common/throughput.hpp"

namespace tcu::bench::device {

const char* op_name(Op op) {
  switch (op) {
    case Op::reduce: return "reduce";
    case Op::scan: return "scan";
    case Op::segmented_reduce: return "segmented_reduce";
    case Op::segmented_scan: return "segmented_scan";
  }
  return "?";
}

namespace {

template <class OutT>
OutT* as(void* p) {
  return static_cast<OutT*>(p);
}

// The one-block-per-array algorithms are left out of full arrays above this size (minutes), and
// the warp-level scan (a warp per segment; the API takes it below 2048) out of longer segments: its
// fp32 carry runs through every tile of a segment, and over 2^28 elements (2^20 tiles) it leaves
// the error bound the chapter holds its scans to.
constexpr std::int64_t kOneBlockCap = std::int64_t(1) << 22;

}  // namespace

std::vector<Variant> variants_for(Op op, bool out_fp16, std::int64_t ns, std::int64_t s) {
  std::vector<Variant> v;
  const bool full = op == Op::reduce || op == Op::scan;
  const bool reduce = op == Op::reduce || op == Op::segmented_reduce;
  if (reduce) {
    std::vector<DeviceReduceAlgorithm> algos{DeviceReduceAlgorithm::automatic};
    for (DeviceReduceAlgorithm a : all_device_reduce_algorithms()) algos.push_back(a);
    for (DeviceReduceAlgorithm a : algos) {
      if (!device_reduce_algorithm_supports(a, ns, s)) continue;
      if (full && (a == DeviceReduceAlgorithm::block_reduce || a == DeviceReduceAlgorithm::warp_level) &&
          s > kOneBlockCap)
        continue;
      v.push_back({device_reduce_algorithm_name(a), op, false, true, false,
                   [a](const __half* in, void* out, std::int64_t n_s, std::int64_t s_s, cudaStream_t st) {
                     return device_reduce_sum(a, in, as<float>(out), n_s, s_s, st);
                   }});
    }
    if (full) {
      v.push_back({"cub_device_reduce", op, false, true, true,
                   [](const __half* in, void* out, std::int64_t, std::int64_t n, cudaStream_t st) {
                     return cub_device_reduce(in, as<float>(out), n, st);
                   }});
      v.push_back({"thrust_reduce", op, false, true, true,
                   [](const __half* in, void* out, std::int64_t, std::int64_t n, cudaStream_t st) {
                     return thrust_reduce(in, as<float>(out), n, st);
                   }});
    }
    return v;
  }
  std::vector<DeviceScanAlgorithm> algos{DeviceScanAlgorithm::automatic};
  for (DeviceScanAlgorithm a : all_device_scan_algorithms()) algos.push_back(a);
  for (DeviceScanAlgorithm a : algos) {
    if (!device_scan_algorithm_supports(a, ns, s)) continue;
    if (((full && a == DeviceScanAlgorithm::block_scan) || a == DeviceScanAlgorithm::warp_level) && s > kOneBlockCap)
      continue;
    v.push_back({device_scan_algorithm_name(a), op, out_fp16, true, false,
                 [a, out_fp16](const __half* in, void* out, std::int64_t n_s, std::int64_t s_s, cudaStream_t st) {
                   return out_fp16 ? device_inclusive_scan_sum(a, in, as<__half>(out), n_s, s_s, st)
                                   : device_inclusive_scan_sum(a, in, as<float>(out), n_s, s_s, st);
                 }});
  }
  if (full) {
    v.push_back({"cub_device_scan", op, out_fp16, true, true,
                 [out_fp16](const __half* in, void* out, std::int64_t, std::int64_t n, cudaStream_t st) {
                   return out_fp16 ? cub_device_scan(in, as<__half>(out), n, true, st)
                                   : cub_device_scan(in, as<float>(out), n, true, st);
                 }});
    if (!out_fp16 && have_cub_deterministic_scan())
      v.push_back({"cub_device_scan_deterministic", op, false, true, true,
                   [](const __half* in, void* out, std::int64_t, std::int64_t n, cudaStream_t st) {
                     return cub_device_scan_deterministic(in, as<float>(out), n, st);
                   }});
    v.push_back({"thrust_inclusive_scan", op, out_fp16, true, true,
                 [out_fp16](const __half* in, void* out, std::int64_t, std::int64_t n, cudaStream_t st) {
                   return out_fp16 ? thrust_scan(in, as<__half>(out), n, true, st)
                                   : thrust_scan(in, as<float>(out), n, true, st);
                 }});
  } else if (!out_fp16) {
    v.push_back({"cub_scan_by_key", op, false, true, true,
                 [](const __half* in, void* out, std::int64_t n_s, std::int64_t s_s, cudaStream_t st) {
                   return cub_scan_by_key(in, as<float>(out), n_s, s_s, st);
                 }});
    v.push_back({"thrust_scan_by_key", op, false, true, true,
                 [](const __half* in, void* out, std::int64_t n_s, std::int64_t s_s, cudaStream_t st) {
                   return thrust_scan_by_key(in, as<float>(out), n_s, s_s, st);
                 }});
  }
  return v;
}

std::vector<std::string> algorithm_names() {
  std::vector<std::string> names{"auto"};
  for (DeviceReduceAlgorithm a : all_device_reduce_algorithms()) names.push_back(device_reduce_algorithm_name(a));
  for (DeviceScanAlgorithm a : all_device_scan_algorithms())
    if (std::find(names.begin(), names.end(), device_scan_algorithm_name(a)) == names.end())
      names.push_back(device_scan_algorithm_name(a));
  for (const char* b : {"cub_device_reduce", "thrust_reduce", "cub_device_scan", "cub_device_scan_deterministic",
                        "thrust_inclusive_scan", "cub_scan_by_key", "thrust_scan_by_key"})
    names.push_back(b);
  return names;
}

// The longest chain of fp32 roundings a result goes through, with 2u per level (verify.hpp):
// a reduction's warp accumulates its tiles in one MMA accumulator (a chain as long as its share,
// charged as log2 of the segment plus the 16 columns, the warp and block levels and the final
// pass); a scan's element: the row's MMA (16), the row offsets (4), the tiles of a warp (8), the
// warp and block carries (2) and the carry's fixed-point rounding (1): 31, or log2 s if larger.
Tolerance reduce_tolerance(std::int64_t s) {
  return tolerance_for_accumulation(device_reduce_error_bound(s).depth, NumType::fp32, NumType::fp32);
}
Tolerance scan_tolerance(std::int64_t s, bool out_fp16) {
  const int depth = std::max(31, ceil_log2(static_cast<std::uint64_t>(s)));
  return tolerance_for_accumulation(depth, NumType::fp32, out_fp16 ? NumType::fp16 : NumType::fp32);
}

namespace {

struct Reference {
  std::vector<double> want, magnitude;
  double max_abs = 0;
};

struct Runner {
  const Options& o;
  double read_gbps, copy_gbps;
  Report rep{Table({{"op"}, {"algo"}, {"out_type"}, {"n"}, {"segment_size"}, {"ms", "%.4f"}, {"gelem_per_s", "%.1f"},
                    {"pct_of_limit", "%.1f"}, {"max_rel_err", "%.2e"}, {"pass"}, {"vs_cub", "%.2f"}})};

  void run_shape(Op op, bool out_fp16, std::int64_t n, std::int64_t s, Progress& progress) {
    const std::int64_t ns = n / s;
    const std::int64_t total = ns * s;
    const bool reduce = op == Op::reduce || op == Op::segmented_reduce;
    // fp16 outputs are checked where they can hold the sums: with non-negative data (uniform
    // [0, 1), ones) the prefix sums of more than 2^16 values pass fp16's largest value (65504),
    // so those shapes scan N(0, 1) data instead (zero mean: the sums of 2^28 values stay within
    // a few 10^4). Speed does not depend on the values.
    Dist dist = o.dist;
    if (out_fp16 && !reduce && s > kFp16SumsFitUpTo && (dist == Dist::uniform || dist == Dist::ones)) {
      dist = Dist::normal;
      const std::string note = "fp16 outputs past segments of " + std::to_string(kFp16SumsFitUpTo) +
                               ": N(0, 1) data (the sums of " + dist_name(o.dist) + " data would pass 65504)";
      if (std::find(rep.notes.begin(), rep.notes.end(), note) == rep.notes.end()) rep.notes.push_back(note);
    }
    DeviceBuffer<__half> in(static_cast<std::size_t>(total));
    fill_device(in.data(), static_cast<std::size_t>(total), dist, o.seed);
    const std::size_t out_count = static_cast<std::size_t>(reduce ? ns : total);
    const std::size_t out_bytes = out_count * (out_fp16 ? 2 : 4);
    DeviceBuffer<unsigned char> out(out_bytes);
    std::unique_ptr<Reference> ref;
    std::vector<__half> host_in;
    if (o.verify) {
      host_in.resize(static_cast<std::size_t>(total));
      fill_host(host_in.data(), host_in.size(), dist, o.seed);
      ref = std::make_unique<Reference>();
      if (reduce) reference_segmented_sum(host_in.data(), ns, s, ref->want, ref->magnitude);
      else reference_segmented_scan(host_in.data(), ns, s, true, ref->want, ref->magnitude);
      for (double w : ref->want) ref->max_abs = std::max(ref->max_abs, std::fabs(w));
    }
    const double limit_gbps = reduce ? read_gbps : copy_gbps;
    const double bytes = reduce ? segmented_bytes(ns, s, 2, 1, 4)
                                : static_cast<double>(total) * (2.0 + (out_fp16 ? 2.0 : 4.0));
    double cub_gelem = 0;
    std::vector<std::vector<Cell>> rows;
    std::vector<double> gelems;
    for (const Variant& v : variants_for(op, out_fp16, ns, s)) {
      if (o.only != "all" && v.algo != o.only && !v.baseline) continue;
      if (o.cub_only && v.algo.rfind("cub_", 0) != 0) continue;
      progress.step(std::string(op_name(op)) + " " + v.algo + " n=" + std::to_string(total) + " s=" + std::to_string(s));
      std::string pass = "n/a";
      double max_rel = 0;
      if (o.verify) {
        poison_device(out.data(), out_bytes);
        TCU_CUDA_CHECK(v.run(in.data(), out.data(), ns, s, 0));
        TCU_CUDA_CHECK(cudaDeviceSynchronize());
        if (out_fp16 && ref->max_abs > 65504.0) {
          pass = "skipped";
          const std::string note = std::string(op_name(op)) + " " + v.algo +
                                   ": fp16 output not checked, the sums reach " + std::to_string(ref->max_abs) +
                                   " > 65504 (fp16's largest value)";
          if (std::find(rep.notes.begin(), rep.notes.end(), note) == rep.notes.end()) rep.notes.push_back(note);
        } else {
          const Tolerance tol = reduce ? reduce_tolerance(s) : scan_tolerance(s, out_fp16);
          VerifyResult r;
          if (out_fp16) {
            std::vector<__half> got(out_count);
            TCU_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), out_bytes, cudaMemcpyDeviceToHost));
            r = verify(got.data(), ref->want.data(), ref->magnitude.data(), out_count, tol);
          } else {
            std::vector<float> got(out_count);
            TCU_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), out_bytes, cudaMemcpyDeviceToHost));
            r = verify(got.data(), ref->want.data(), ref->magnitude.data(), out_count, tol);
          }
          pass = r.pass ? "PASS" : "FAIL";
          max_rel = r.max_rel_err;
          if (!r.pass) {
            // A baseline outside the bound this chapter holds its own kernels to is reported, not
            // counted as the chapter's failure (CUB's look-back adds its tile totals in one fp32
            // chain: past 2^31 elements its error can exceed the bound).
            if (v.baseline) pass = "FAIL (baseline)";
            else rep.all_passed = false;
            rep.notes.push_back(std::string(op_name(op)) + " " + v.algo + " s=" + std::to_string(s) + ": " + r.summary() +
                                (v.baseline ? " (a baseline: outside the bound, reported only)" : ""));
          }
        }
      }
      const TimingStats t = time_on_device([&](cudaStream_t st) { TCU_CUDA_CHECK(v.run(in.data(), out.data(), ns, s, st)); },
                                           o.timing);
      const double g = gelem_per_s(total, t.median_ms);
      if (v.algo.rfind("cub_", 0) == 0 && cub_gelem == 0) cub_gelem = g;  // vs_cub: the first CUB row
      gelems.push_back(g);
      rows.push_back({std::string(op_name(op)), v.algo, std::string(out_fp16 ? "fp16" : "fp32"),
                      total, s, t.median_ms, g, percent_of(gb_per_s(bytes, t.median_ms), limit_gbps),
                      o.verify ? Cell(max_rel) : Cell(), pass, Cell()});
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (cub_gelem > 0) rows[i].back() = gelems[i] / cub_gelem;
      rep.table.add_row(rows[i]);
    }
  }
};

}  // namespace

Report run_benchmarks(const Options& o, double read_gbps, double copy_gbps) {
  Runner r{o, read_gbps, copy_gbps};
  std::vector<std::int64_t> full = o.full_sizes.empty() ? std::vector<std::int64_t>{o.n} : o.full_sizes;
  std::vector<std::int64_t> segs = o.segment_sizes.empty() ? std::vector<std::int64_t>{o.segment_size} : o.segment_sizes;
  int steps = 0;
  for (Op op : o.ops) {
    const bool full_op = op == Op::reduce || op == Op::scan;
    const int outs = op == Op::scan ? 2 : 1;
    const std::size_t shapes = full_op ? full.size() : segs.size();
    steps += static_cast<int>(shapes) * outs * static_cast<int>(variants_for(op, false, 1, o.n).size());
  }
  Progress progress("05_block_grid", steps, o.progress);
  for (Op op : o.ops) {
    if (op == Op::reduce || op == Op::scan) {
      for (std::int64_t n : full) {
        r.run_shape(op, false, n, n, progress);
        if (op == Op::scan) r.run_shape(op, true, n, n, progress);
      }
    } else {
      for (std::int64_t s : segs)
        if (s <= o.n) r.run_shape(op, false, o.n, s, progress);
    }
  }
  return std::move(r.rep);
}

}  // namespace tcu::bench::device
