#pragma once
// Running a mode several times and reporting it: the median of every phase over `repeat`
// fresh workflows (after `warmup` untimed ones), every result verified against the FP64 sum.
#include <cstdint>
#include <string>
#include <vector>

#include "06_jetson_unified_memory/unified_memory.hpp"
#include "common/reference.hpp"
#include "common/report.hpp"

namespace tcu::unified_memory {

struct MeasureConfig {
  int warmup = 1;
  int repeat = 5;
  bool verify = true;
};

struct ModeReport {
  std::string mode;
  bool on_gpu = true;
  std::int64_t n = 0;
  bool skipped = false;
  std::string note;       // the reason for a skip, or the tolerance's rationale
  int runs = 0;           // timed runs
  PhaseTimes median;      // per-phase medians (median_of)
  double sum = 0;         // result of the last run
  double want = 0;        // the FP64 reference
  double max_rel_err = 0; // over every run, warm-up included
  bool verified = false;
  bool pass = true;       // every run within tolerance (true when not verified)
};

// The FP64 reference of the data set `w` describes (fills a temporary host buffer).
SumRef reference_for(const Workload& w);

// A report saying why the mode did not run.
ModeReport skipped_report(const Mode& mode, const Workload& w, const std::string& reason);

// Runs `mode` warmup + repeat times on fresh buffers. A mode this platform does not support
// comes back skipped, with its reason.
ModeReport measure(const Mode& mode, const Workload& w, const Platform& platform, const SumRef& ref,
                   const MeasureConfig& cfg);

// Exactly mode,bytes,alloc_ms,fill_ms,transfer_ms,kernel_ms,readback_ms,total_ms,pass — one
// row per report that ran (skipped modes have no row). CPU rows leave transfer_ms and
// readback_ms empty and put the reduction in kernel_ms. pass is true/false, empty when the
// run was not verified.
Table csv_table(const std::vector<ModeReport>& reports);
inline constexpr const char* kCsvHeader = "mode,bytes,alloc_ms,fill_ms,transfer_ms,kernel_ms,readback_ms,total_ms,pass";

// The table printed for people: the phases, the kernel as events saw it, the sum of the phase
// medians, the speed-up of the total over the pageable workflow of the same size, the
// kernel's read bandwidth and its share of the read-stream bandwidth measured in this run
// (`read_stream_gb_s`, 0 when not measured), the error and the verdict. Skipped modes show
// their reason.
Table text_table(const std::vector<ModeReport>& reports, double read_stream_gb_s);

}  // namespace tcu::unified_memory
