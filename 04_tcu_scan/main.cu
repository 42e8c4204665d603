// 04_tcu_scan: segmented prefix sums on tensor cores (Dakkak et al. Scan16/256/256N/16N and the
// block level; Zouzias & McColl MatMulScan) against Thrust and CUB, in one run with the copy
// bandwidth they are all bounded by. This file parses flags and calls the library.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "04_tcu_scan/bench/scan_bench.hpp"
#include "04_tcu_scan/bench/scan_model.hpp"
#include "04_tcu_scan/tcu_scan.cuh"
#include "common/bandwidth.cuh"
#include "common/chapter_main.hpp"
#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/device_info.cuh"
#include "common/segments.hpp"
#include "common/exit_codes.hpp"
#include "common/report.hpp"

namespace {

// MatMulScan's depth and products inside one block (s = 16), next to the paper's bounds.
tcu::Table matmulscan_counts_table() {
  tcu::Table t(std::vector<tcu::Column>{{"s"}, {"k"}, {"n = s^k"}, {"depth"}, {"bound 2k-1"},
                                         {"products (16x16 tiles)"}, {"bound"}});
  for (int k = 1; k <= 3; ++k) {
    tcu::bench::scan::MatMulScanCounts c;
    std::vector<double> x(static_cast<std::size_t>(1) << (4 * k), 1.0);
    tcu::bench::scan::matmulscan(x, 16, k, &c);
    t.add_row({std::int64_t{16}, std::int64_t{k}, static_cast<std::int64_t>(x.size()), std::int64_t{c.depth},
               std::int64_t{2 * k - 1}, c.products, c.bound});
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  namespace sb = tcu::bench::scan;
  const std::string prog = "04_tcu_scan";
  tcu::CliParser cli(prog,
                     "Segmented inclusive/exclusive prefix sums of fp16 data on tensor cores — Dakkak et al.'s\n"
                     "Scan16, Scan256, Scan256N, Scan16N and block-level scan, and Zouzias & McColl's MatMulScan —\n"
                     "against thrust/cub scan_by_key, cub::WarpScan/BlockScan kernels, cub::DeviceSegmentedScan\n"
                     "(CCCL 3.3+) and, on the whole array, cub::DeviceScan, with fp16 or fp32 outputs.\n"
                     "Each variant is checked against an FP64 CPU reference and timed; throughput is compared with\n"
                     "the copy bandwidth measured in the same run (a scan reads 2 and writes 2 or 4 bytes/element).");
  tcu::CommonOptions common;
  common.repeat = 20;
  tcu::add_common_options(cli, common, sb::variant_names());
  std::int64_t n = std::int64_t(1) << 28, segment_size = 256;
  std::string out = "both";
  bool exclusive = false;
  std::string baselines_only;
  cli.add_int("--n", &n, "elements in total (rounded down to whole segments; default 2^28)", 1,
              std::int64_t(1) << 31);
  cli.add_int("--segment-size", &segment_size, "elements per segment (default 256)", 1, std::int64_t(1) << 31);
  cli.add_string("--out", &out, "output type: fp16, fp32 or both (default both)", {"fp16", "fp32", "both"});
  cli.add_flag("--exclusive", &exclusive, "exclusive instead of inclusive scans");
  cli.add_string("--baselines-only", &baselines_only,
                 "run only baselines: cub (those named cub_*, e.g. for a build against another CCCL) or all",
                 {"cub", "all"});
  std::string algos =
      "--sweep: segment sizes 2^4 … 2^16, the odd sizes 17 … 12345 and --n itself (one segment: the whole\n"
      "array) at --n (Dakkak Fig. 12), every variant and auto, plus the warp vs block table (Fig. 11).\n"
      "Algorithms (--algo), from the API's name table:\n";
  for (tcu::ScanAlgorithm a : tcu::all_scan_algorithms())
    algos += "  " + std::string(tcu::scan_algorithm_name(a)) + "  " + tcu::scan_algorithm_description(a) + "\n";
  algos += "  " + std::string(tcu::scan_algorithm_name(tcu::ScanAlgorithm::automatic)) + "  the API's choice (" +
           tcu::scan_algorithm_description(tcu::ScanAlgorithm::automatic) + ")\n";
  algos += "Baselines (--algo; built against CCCL " + tcu::format_cccl_version(tcu::built_cccl_version()) + "):";
  for (const std::string& b : sb::baseline_names()) algos += " " + b;
  for (const std::string& b : sb::whole_array_baseline_names()) algos += " " + b + " (the whole array only)";
  cli.add_epilog(
      algos +
      "\nExamples:\n"
      "  04_tcu_scan                                   every variant, segments of 256, n = 2^28\n"
      "  04_tcu_scan --sweep --csv segmented_scan.csv  the paper's sweep\n"
      "  04_tcu_scan --sweep --baselines-only cub      the CUB rows only (a second CCCL build)\n"
      "  04_tcu_scan --algo matmulscan --segment-size 1000 --exclusive --out fp32\n"
      "  04_tcu_scan --dist int --json                 bit-exact checks, JSON");
  if (int code = tcu::handle_cli(cli, argc, argv); code >= 0) return code;
  if (segment_size > n) {
    return cli.usage_error("--segment-size " + std::to_string(segment_size) + " is larger than --n " + std::to_string(n));
  }

  if (const std::optional<tcu::ScanAlgorithm> chosen = tcu::parse_scan_algorithm(common.algo);
      !common.sweep && chosen && !tcu::scan_algorithm_supports(*chosen, segment_size)) {
    return cli.usage_error("--algo " + common.algo + " does not take --segment-size " + std::to_string(segment_size) +
                           " (" + tcu::scan_algorithm_description(*chosen) + ")");
  }

  tcu::DeviceInfo info;
  if (int code = tcu::require_gpu(prog, static_cast<int>(common.device), info); code >= 0) return code;

  return tcu::run_guarded(prog, [&] {
    TCU_CUDA_CHECK(cudaSetDevice(static_cast<int>(common.device)));
    const tcu::BandwidthProbe probe = tcu::run_bandwidth_probe();
    sb::SweepConfig cfg;
    cfg.n = n;
    if (common.sweep)
      cfg.segment_sizes = tcu::sweep_segment_sizes(4, 16, n, true);
    else
      cfg.segment_sizes = {segment_size};
    if (out != "both") cfg.out_types = {out == "fp16" ? sb::OutType::fp16 : sb::OutType::fp32};
    cfg.algo = common.algo;
    cfg.baselines_only = baselines_only;
    cfg.inclusive = !exclusive;
    cfg.dist = common.dist_value();
    cfg.seed = static_cast<std::uint64_t>(common.seed);
    cfg.timing = {static_cast<int>(common.warmup), static_cast<int>(common.repeat)};
    cfg.verify = !common.no_verify;
    cfg.progress = !common.json;
    const std::vector<sb::SweepRow> rows = sb::run_sweep(cfg, probe.copy.gb_per_s());
    if (auto why = tcu::missing_variant(sb::csv_table(rows), common.algo)) return cli.usage_error(*why);
    bool all_pass = true;
    for (const sb::SweepRow& r : rows) all_pass &= r.pass;

    const tcu::Table table = sb::text_table(rows);
    if (common.json) {
      std::cout << tcu::JsonObject()
                       .add("program", prog)
                       .add("device", info)
                       .add("copy_gb_per_s", probe.copy.gb_per_s())
                       .add("baselines_cccl", tcu::format_cccl_version(tcu::built_cccl_version()))
                       .add("scan", exclusive ? "exclusive" : "inclusive")
                       .add("results", sb::csv_table(rows))
                       .add("all_passed", all_pass)
                       .dump();
    } else {
      std::cout << tcu::describe(info) << "\n"
                << "copy bandwidth (same run): " << probe.copy.gb_per_s() << " GB/s; read stream "
                << probe.read_stream.gb_per_s() << " GB/s\n"
                << "baselines built against CCCL " << tcu::format_cccl_version(tcu::built_cccl_version()) << "\n"
                << (exclusive ? "exclusive" : "inclusive") << " scans, fp16 input, fp32 accumulation, " << cfg.n
                << " elements (rounded down to whole segments)\n\n"
                << "== MatMulScan inside a block (s = 16): depth and 16x16 products vs the paper's bounds ==\n"
                << matmulscan_counts_table().to_text() << "\n== results ==\n"
                << table.to_text() << "\n== best tensor-core scan per segment size ==\n"
                << sb::best_tcu_table(rows).to_text() << "\n== warp vs block level (G elements/s) ==\n"
                << sb::warp_vs_block_table(rows).to_text()
                << (all_pass ? "\nAll variants passed.\n" : "\nSome variants FAILED verification.\n");
    }
    if (!common.csv.empty()) tcu::write_text_file(common.csv, sb::csv_table(rows).to_csv());
    return all_pass ? tcu::kExitOk : tcu::kExitVerificationFailed;
  });
}
