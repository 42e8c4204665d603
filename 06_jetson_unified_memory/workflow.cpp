#include "06_jetson_unified_memory/workflow.hpp"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <new>

#include "06_jetson_unified_memory/host_data.hpp"
#include "06_jetson_unified_memory/memory_budget.hpp"

namespace tcu::unified_memory {

SumRef reference_for(const Workload& w) {
  const auto n = static_cast<std::size_t>(w.n);
  std::unique_ptr<__half, void (*)(void*)> x(static_cast<__half*>(std::malloc(n * sizeof(__half))), std::free);
  if (!x) throw std::bad_alloc();
  fill_host_parallel(x.get(), n, w.dist, w.seed);
  return reference_sum_parallel(x.get(), n);
}

ModeReport skipped_report(const Mode& mode, const Workload& w, const std::string& reason) {
  ModeReport r;
  r.mode = mode.name();
  r.on_gpu = mode.on_gpu();
  r.n = w.n;
  r.skipped = true;
  r.note = reason;
  return r;
}

ModeReport measure(const Mode& mode, const Workload& w, const Platform& platform, const SumRef& ref,
                   const MeasureConfig& cfg) {
  if (auto why = mode.unsupported(platform)) return skipped_report(mode, w, *why);
  ModeReport r;
  r.mode = mode.name();
  r.on_gpu = mode.on_gpu();
  r.n = w.n;
  r.want = ref.sum;
  r.verified = cfg.verify;
  const Tolerance tol = mode.tolerance(w.n);
  r.note = tol.rationale;
  std::vector<PhaseTimes> timed;
  const int repeat = cfg.repeat > 0 ? cfg.repeat : 1;
  for (int i = 0; i < cfg.warmup + repeat; ++i) {
    const RunOutcome out = mode.run(w);
    if (i >= cfg.warmup) timed.push_back(out.times);
    r.sum = out.sum;
    if (cfg.verify) {
      const VerifyResult v = verify_doubles(&out.sum, &ref.sum, &ref.abs_sum, 1, tol);
      r.max_rel_err = std::fmax(r.max_rel_err, v.max_rel_err);
      if (!v.pass) {
        r.pass = false;
        r.note = v.summary() + "; " + tol.rationale;
      }
    }
  }
  r.runs = repeat;
  r.median = median_of(timed);
  return r;
}

Table csv_table(const std::vector<ModeReport>& reports) {
  Table t({{"mode"}, {"bytes"}, {"alloc_ms"}, {"fill_ms"}, {"transfer_ms"}, {"kernel_ms"}, {"readback_ms"},
           {"total_ms"}, {"pass"}});
  for (const ModeReport& r : reports) {
    if (r.skipped) continue;
    const PhaseTimes& m = r.median;
    const Cell none{};
    t.add_row({r.mode, static_cast<std::int64_t>(r.n * 2), m.alloc_ms, m.fill_ms,
               r.on_gpu ? Cell{m.transfer_ms} : none, m.kernel_ms, r.on_gpu ? Cell{m.readback_ms} : none,
               m.total_ms, r.verified ? Cell{r.pass} : none});
  }
  return t;
}

namespace {
// A number, or an empty cell when it does not apply.
Cell maybe(bool applies, double value) { return applies ? Cell{value} : Cell{}; }
}  // namespace

Table text_table(const std::vector<ModeReport>& reports, double read_stream_gb_s) {
  Table t({{"mode"}, {"size"}, {"alloc ms", "%.3f"}, {"fill ms", "%.3f"}, {"transfer ms", "%.3f"},
           {"kernel ms", "%.3f"}, {"kernel (events) ms", "%.3f"}, {"readback ms", "%.3f"},
           {"total ms", "%.3f"}, {"sum of phases ms", "%.3f"}, {"vs pageable", "%.2fx"},
           {"kernel GB/s", "%.1f"}, {"% of read stream", "%.1f"}, {"max rel err", "%.2e"}, {"result"}});
  for (const ModeReport& r : reports) {
    const std::string size = format_bytes(static_cast<std::uint64_t>(r.n) * 2);
    const Cell none{};
    if (r.skipped) {
      t.add_row({r.mode, size, none, none, none, none, none, none, none, none, none, none, none, none,
                 std::string("SKIP (") + r.note + ")"});
      continue;
    }
    double base_total = 0;
    for (const ModeReport& base : reports)
      if (base.mode == "pageable" && base.n == r.n && !base.skipped) base_total = base.median.total_ms;
    const PhaseTimes& m = r.median;
    const bool has_kernel_rate = r.on_gpu && m.kernel_event_ms > 0;
    const double gbs = has_kernel_rate ? static_cast<double>(r.n) * 2 / (m.kernel_event_ms * 1e6) : 0.0;
    const Cell speedup = maybe(base_total > 0 && m.total_ms > 0, base_total / m.total_ms);
    const Cell rate = maybe(has_kernel_rate, gbs);
    const Cell pct = maybe(has_kernel_rate && read_stream_gb_s > 0, 100.0 * gbs / read_stream_gb_s);
    const Cell result = r.verified ? Cell{r.pass} : Cell{std::string("unverified")};
    t.add_row({r.mode, size, m.alloc_ms, m.fill_ms, r.on_gpu ? Cell{m.transfer_ms} : none, m.kernel_ms,
               r.on_gpu ? Cell{m.kernel_event_ms} : none, r.on_gpu ? Cell{m.readback_ms} : none, m.total_ms,
               m.phase_sum(), speedup, rate, pct, r.verified ? Cell{r.max_rel_err} : none, result});
  }
  return t;
}

}  // namespace tcu::unified_memory
