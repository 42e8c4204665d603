// 05_block_grid: block- and grid-level sums and prefix sums of fp16 data on tensor cores, and
// the device-wide API (tcu_device.cuh), timed against CUB and Thrust with the read-stream and
// copy bandwidth measured in the same run. This file parses the flags and calls the library.
#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "05_block_grid/bench/baselines.cuh"
#include "05_block_grid/bench/measure.hpp"
#include "05_block_grid/bench/ragged.hpp"
#include "05_block_grid/bench/ragged_offsets.hpp"
#include "common/bandwidth.cuh"
#include "common/chapter_main.hpp"
#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/device_info.cuh"
#include "common/exit_codes.hpp"
#include "common/report.hpp"
#include "common/segments.hpp"

int main(int argc, char** argv) {
  namespace bd = tcu::bench::device;
  const std::string prog = "05_block_grid";
  tcu::CliParser cli(prog,
                     "Block level (Dakkak Alg. 4 and 7), grid level (two-pass and single-pass reduction; three-kernel\n"
                     "and decoupled look-back scans) and the device-wide API tcu::DeviceReduce / DeviceScan /\n"
                     "DeviceSegmentedReduce / DeviceSegmentedScan, fp16 in, fp32 accumulation, on tensor cores;\n"
                     "timed against CUB and Thrust, checked against an FP64 CPU reference, with the read-stream\n"
                     "(reductions) and copy (scans) bandwidth measured in the same run as the limits.");
  tcu::CommonOptions common;
  common.repeat = 20;
  tcu::add_common_options(cli, common, bd::algorithm_names());
  std::int64_t n = -1;
  std::vector<std::int64_t> segments{std::int64_t(1) << 16};
  std::string op = "all";
  cli.add_int("--n", &n, "elements (default 2^24; 2^28 with --sweep)", 1, (std::int64_t(1) << 33));
  cli.add_int_list("--segment-size", &segments,
                   "elements per segment of the segmented rows: one size or a comma-separated list (default 2^16)", 1,
                   std::int64_t(1) << 33);
  cli.add_string("--op", &op, "which operation (default all)",
                 {"all", "reduce", "scan", "segmented_reduce", "segmented_scan", "exclusive_scan"});
  bool ragged = false;
  std::string distribution = "all", baselines_only;
  cli.add_flag("--ragged", &ragged,
               "ragged segments (CUB's int32 offsets) over the distributions, vs CUB (n default 2^28)");
  std::vector<std::string> dist_choices{"all"};
  for (const std::string& d : bd::ragged_distributions()) dist_choices.push_back(d);
  cli.add_string("--distribution", &distribution, "with --ragged: one distribution (default all)", dist_choices);
  cli.add_string("--baselines-only", &baselines_only,
                 "only the cub_* rows (a build against another CCCL, e.g. scripts/fetch_cccl.sh's)", {"cub"});
  cli.add_epilog(
      "Algorithms (--algo): auto (the API's choice), block_reduce, grid_two_pass, grid_single_pass,\n"
      "  segmented_lookback, block_scan, grid_three_kernel, grid_lookback, grid_warp_specialised (Hopper;\n"
      "  elsewhere it runs grid_lookback), warp_level with chapters 03/04; baselines cub_device_reduce,\n"
      "  thrust_reduce, cub_device_scan, cub_device_scan_deterministic (CCCL 3.4 or newer), thrust_inclusive_scan,\n"
      "  cub_scan_by_key, thrust_scan_by_key always run.\n"
      "fp16 outputs: a prefix above 65504 does not fit in fp16. fp16-output scans longer than 2^15 run on\n"
      "  N(0, 1) data when --dist is uniform or ones (a note says so); a row whose sums still pass 65504 is\n"
      "  timed but not checked (pass = skipped), never reported as FAIL.\n"
      "A baseline outside the error bound the chapter holds its own scans to is reported as\n"
      "  \"FAIL (baseline)\" and does not change the exit code.\n"
      "Examples:\n"
      "  05_block_grid --n 2^28                        every operation at n = 2^28, segments of 2^16\n"
      "  05_block_grid --n 2^28 --segment-size 2^14,2^20,2^28   the segmented rows at three sizes\n"
      "  05_block_grid --op scan --n 2^31+17 …          (use --n 2147483665) a scan past 2^31 elements\n"
      "  05_block_grid --sweep --csv device_reduce_scan.csv     n = 2^10 … 2^28, then segments 2^14 … 2^28 at 2^28\n"
      "  05_block_grid --dist int --json                bit-exact checks, results as JSON\n"
      "  05_block_grid --ragged --csv ragged_segments.csv   ragged segments (fixed_17 … with_empty) at 2^28\n"
      "Ragged (--ragged): ops reduce (fp32 out) and inclusive scan (fp32 and fp16 out) of the API's offset\n"
      "  overloads (algo auto) against cub_segmented_reduce, cub_scan_by_key (keys built outside the timing)\n"
      "  and cub_segmented_scan (CCCL 3.3 or newer); distributions fixed_17, fixed_100, fixed_1000,\n"
      "  uniform_1_32, uniform_1_2000, zipf, one_huge_many_tiny, with_empty; pct_of_limit counts input,\n"
      "  offsets and outputs. --op reduce or scan, and --algo auto (the API's rows, no CUB), narrow the rows;\n"
      "  --op exclusive_scan: the exclusive scans instead (ExclusiveSum; CUB's exclusive scan-by-key and\n"
      "  segmented scan), op exclusive_scan in the CSV.\n"
      "  CSV columns: op,distribution,mean_length,num_segments,n,algo,out_type,ms,gelem_per_s,pct_of_limit,\n"
      "  max_rel_err,pass");
  if (int code = tcu::handle_cli(cli, argc, argv); code >= 0) return code;
  if (!ragged && distribution != "all") return cli.usage_error("--distribution goes with --ragged");
  if (ragged && common.sweep) return cli.usage_error("--ragged runs its own rows: it takes no --sweep");
  if (ragged && op != "all" && op != "reduce" && op != "scan" && op != "exclusive_scan")
    return cli.usage_error("--ragged takes --op all, reduce, scan or exclusive_scan");
  if (!ragged && op == "exclusive_scan") return cli.usage_error("--op exclusive_scan goes with --ragged");
  if (ragged && common.algo != "all" && common.algo != "auto")
    return cli.usage_error("--ragged takes --algo all or auto (only the API's rows)");
  if (ragged && common.algo == "auto" && !baselines_only.empty())
    return cli.usage_error("--algo auto and --baselines-only cub leave no rows");
  if (n < 0) n = common.sweep || ragged ? (std::int64_t(1) << 28) : (std::int64_t(1) << 24);
  for (std::int64_t segment : segments)
    if (!common.sweep && !ragged && (op == "all" || op.rfind("segmented", 0) == 0) && segment > n) {
      return cli.usage_error("--segment-size " + std::to_string(segment) + " is larger than --n " + std::to_string(n));
    }

  tcu::DeviceInfo info;
  if (int code = tcu::require_gpu(prog, static_cast<int>(common.device), info); code >= 0) return code;

  return tcu::run_guarded(prog, [&] {
    TCU_CUDA_CHECK(cudaSetDevice(static_cast<int>(common.device)));
    std::ostream& out = std::cout;
    if (!common.json)
      out << tcu::describe(info) << "\nbaselines built against CCCL " << tcu::format_cccl_version(tcu::built_cccl_version())
          << "\n";
    const tcu::BandwidthProbe probe = tcu::run_bandwidth_probe();
    // One report: JSON, or the table with its notes; the CSV; the exit code.
    auto finish = [&](const bd::Report& rep, const char* pct_of_limit) {
      if (common.json) {
        out << tcu::JsonObject()
                   .add("program", prog)
                   .add("device", info)
                   .add("cccl", "CCCL " + tcu::format_cccl_version(tcu::built_cccl_version()))
                   .add("read_stream_gb_per_s", probe.read_stream.gb_per_s())
                   .add("copy_gb_per_s", probe.copy.gb_per_s())
                   .add("results", rep.table)
                   .add("all_passed", rep.all_passed)
                   .dump();
      } else {
        out << "read stream (same run): " << probe.read_stream.gb_per_s() << " GB/s; copy: "
            << probe.copy.gb_per_s() << " GB/s (read + written)\n"
            << "pct_of_limit: " << pct_of_limit << "\n\n"
            << rep.table.to_text();
        for (const std::string& note : rep.notes) out << "note: " << note << "\n";
        out << (rep.all_passed ? "\nAll checks PASS.\n" : "\nSome checks FAILED.\n");
      }
      if (!common.csv.empty()) tcu::write_text_file(common.csv, rep.table.to_csv());
      return rep.all_passed ? tcu::kExitOk : tcu::kExitVerificationFailed;
    };
    if (ragged) {
      bd::RaggedOptions ro;
      ro.n = n;
      if (distribution != "all") ro.distributions = {distribution};
      ro.baselines_only = baselines_only;
      ro.op = op;
      ro.only_api = common.algo == "auto";
      ro.dist = common.dist_value();
      ro.seed = static_cast<std::uint64_t>(common.seed);
      ro.timing = tcu::TimingConfig{static_cast<int>(common.warmup), static_cast<int>(common.repeat)};
      ro.verify = !common.no_verify;
      ro.progress = !common.json;
      return finish(bd::run_ragged_benchmarks(ro, probe.read_stream.gb_per_s(), probe.copy.gb_per_s()),
                    "% of the read stream (reduce) or of the copy (scan), counting input, offsets (int32 begin "
                    "and end) and outputs");
    }
    bd::Options o;
    o.n = n;
    o.segment_size = segments.front();
    if (segments.size() > 1) o.segment_sizes = segments;
    if (op != "all") {
      o.ops.clear();
      for (bd::Op x : {bd::Op::reduce, bd::Op::scan, bd::Op::segmented_reduce, bd::Op::segmented_scan})
        if (op == bd::op_name(x)) o.ops.push_back(x);
    }
    if (common.sweep) {
      for (int e = 10; e <= 28; ++e) o.full_sizes.push_back(std::int64_t(1) << e);
      o.segment_sizes = tcu::paper_segment_sizes(14, 28);
    }
    o.only = common.algo;
    o.cub_only = baselines_only == "cub";
    o.dist = common.dist_value();
    o.seed = static_cast<std::uint64_t>(common.seed);
    o.timing = tcu::TimingConfig{static_cast<int>(common.warmup), static_cast<int>(common.repeat)};
    o.verify = !common.no_verify;
    o.progress = !common.json;
    const bd::Report rep = bd::run_benchmarks(o, probe.read_stream.gb_per_s(), probe.copy.gb_per_s());
    if (auto why = tcu::missing_variant(rep.table, common.algo)) return cli.usage_error(*why);
    return finish(rep, "% of the read stream (reductions) or of the copy (scans, bytes read + written)");
  });
}
