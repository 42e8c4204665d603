// 03_tcu_reduction: segmented sums on tensor cores (Dakkak et al.; Navarro et al.) against CUB,
// Thrust and hand-tuned shuffle kernels. This file parses the flags and calls the library
// (bench/); the kernels and their launchers are in kernels/, the API in tcu_reduction.cuh.
#include <algorithm>
#include <iostream>
#include <string>

#include "03_tcu_reduction/bench/baselines.cuh"
#include "03_tcu_reduction/bench/measurements.hpp"
#include "03_tcu_reduction/bench/sweep.hpp"
#include "03_tcu_reduction/tcu_reduction.cuh"
#include "common/bandwidth.cuh"
#include "common/chapter_main.hpp"
#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/device_info.cuh"
#include "common/exit_codes.hpp"
#include "common/report.hpp"
#include "common/segments.hpp"
#include "common/throughput.hpp"

int main(int argc, char** argv) {
  namespace red = tcu::bench::reduce;
  const std::string prog = "03_tcu_reduction";
  tcu::CliParser cli(prog,
                     "Segmented sums of fp16 data (fp32 results) with tensor cores: Dakkak et al.'s Reduction16,\n"
                     "Reduction256, Reduction256N (work-inefficient, work-efficient, block level), Reduction16N\n"
                     "(strided, coalesced) and Navarro et al.'s chained MMAs (recurrence, single pass, split),\n"
                     "timed against cub::DeviceSegmentedReduce (offset and, with CCCL 3.1+, fixed-size API),\n"
                     "cub::WarpReduce, cub::BlockReduce, a shuffle kernel with 16-byte loads and, on the whole\n"
                     "array, cub::DeviceReduce; each checked against an FP64 CPU sum, with the read-stream\n"
                     "bandwidth measured in the same run as the ceiling.");
  tcu::CommonOptions common;
  common.repeat = 20;
  tcu::add_common_options(cli, common, red::segmented_variant_names());
  std::int64_t n = -1, segment = 256, offset = 0, lo = 4, hi = 24, acc_hi = 28;
  bool warp_block = false, accuracy = false, energy = false, no_cap = false;
  std::string baselines_only;
  cli.add_int("--n", &n, "total elements (default 2^24; 2^28 with --sweep/--warp-block/--energy)", 1,
              std::int64_t(1) << 31);
  cli.add_int("--segment-size", &segment, "elements per segment (default 256)", 1, std::int64_t(1) << 31);
  cli.add_int("--offset", &offset, "read the input from d_in + OFFSET elements (unaligned pointers; default 0)", 0,
              1024);
  cli.add_int("--sweep-lo", &lo, "--sweep from segment size 2^LO (default 4)", 0, 31);
  cli.add_int("--sweep-hi", &hi, "--sweep up to segment size 2^HI (default 24)", 0, 31);
  cli.add_string("--baselines-only", &baselines_only,
                 "run only baselines: cub (those named cub_*, e.g. for a build against another CCCL) or all",
                 {"cub", "all"});
  cli.add_flag("--warp-block", &warp_block,
               "warp- vs block-level comparison (Dakkak Fig. 11), segment sizes 2^8 … 2^HI, same columns");
  cli.add_flag("--accuracy", &accuracy,
               "relative error vs FP64 of whole-array sums, normal and uniform, n = 2^10 … 2^ACC (Navarro)");
  cli.add_int("--accuracy-max", &acc_hi, "largest n of --accuracy as an exponent (default 28)", 10, 30);
  cli.add_flag("--energy", &energy, "energy per element from NVML around the timed loop (n/a without the driver's NVML)");
  cli.add_flag("--no-cap", &no_cap, "also run warp-level algorithms on the sizes they are skipped at (slow)");
  std::string algos = "Algorithms (--algo), from the API's name table:\n";
  auto algo_line = [](tcu::ReduceAlgorithm a) {
    std::string name = tcu::reduce_algorithm_name(a);
    name.resize(std::max<std::size_t>(name.size() + 2, 28), ' ');
    return "  " + name + tcu::reduce_algorithm_description(a) + "\n";
  };
  for (tcu::ReduceAlgorithm a : tcu::all_reduce_algorithms())
    if (a != tcu::ReduceAlgorithm::chained_mma_fp16_accumulate) algos += algo_line(a);  // fp16 replica: --accuracy only
  algos += algo_line(tcu::ReduceAlgorithm::automatic);
  algos += "Baselines (--algo; built against CCCL " + tcu::format_cccl_version(tcu::built_cccl_version()) + "):";
  for (const std::string& b : red::baseline_names()) algos += " " + b;
  cli.add_epilog(algos + "\n(cub_device_reduce: the whole array only, the sweep's segment size = n.)\n");
  cli.add_epilog(
      "Examples:\n"
      "  03_tcu_reduction                                   every algorithm, n = 2^24, segments of 256\n"
      "  03_tcu_reduction --segment-size 17 --offset 3      odd segments from an unaligned pointer\n"
      "  03_tcu_reduction --sweep --csv segmented_reduce.csv          Dakkak Fig. 10 (n = 2^28): 2^4 … 2^24,\n"
      "                                                     odd sizes 17 … 12345 and the whole array\n"
      "  03_tcu_reduction --sweep --baselines-only cub      the CUB rows only (a second CCCL build)\n"
      "  03_tcu_reduction --warp-block --csv segmented_reduce_warp_block.csv   Dakkak Fig. 11\n"
      "  03_tcu_reduction --accuracy --csv reduce_accuracy.csv        Navarro's accuracy study\n"
      "  03_tcu_reduction --energy --csv reduce_energy.csv            NVML energy per element\n"
      "  03_tcu_reduction --dist int --json                 bit-exact checks, results as JSON");
  if (int code = tcu::handle_cli(cli, argc, argv); code >= 0) return code;
  if (lo > hi) {
    return cli.usage_error("--sweep-lo " + std::to_string(lo) + " is above --sweep-hi " + std::to_string(hi));
  }
  if (int(common.sweep) + int(warp_block) + int(accuracy) + int(energy) > 1) {
    return cli.usage_error("choose one of --sweep, --warp-block, --accuracy, --energy");
  }
  const bool big = common.sweep || warp_block || energy;
  if (n < 0) n = big ? (std::int64_t(1) << 28) : (std::int64_t(1) << 24);
  if (!big && !accuracy && segment > n) {
    return cli.usage_error("--segment-size " + std::to_string(segment) + " is larger than --n " + std::to_string(n));
  }

  tcu::DeviceInfo info;
  if (int code = tcu::require_gpu(prog, static_cast<int>(common.device), info); code >= 0) return code;

  return tcu::run_guarded(prog, [&] {
    TCU_CUDA_CHECK(cudaSetDevice(static_cast<int>(common.device)));
    std::ostream& out = std::cout;
    if (!common.json) out << tcu::describe(info) << "\n";

    if (accuracy) {
      red::AccuracyOptions ao;
      ao.hi = static_cast<int>(acc_hi);
      ao.seed = static_cast<std::uint64_t>(common.seed);
      const tcu::Table t = red::run_accuracy(ao);
      if (common.json)
        out << tcu::JsonObject().add("program", prog).add("device", info).add("results", t).add("all_passed", true).dump();
      else
        out << "\n== accuracy: |sum - FP64| / |FP64| of whole arrays ==\n" << t.to_text();
      if (!common.csv.empty()) tcu::write_text_file(common.csv, t.to_csv());
      return tcu::kExitOk;
    }
    if (energy) {
      red::EnergyOptions eo;
      eo.n = n;
      eo.seed = static_cast<std::uint64_t>(common.seed);
      eo.device = static_cast<int>(common.device);
      std::string status;
      const tcu::Table t = red::run_energy(eo, status);
      if (common.json)
        out << tcu::JsonObject().add("program", prog).add("nvml", status).add("results", t).add("all_passed", true).dump();
      else
        out << "\n== energy per element (" << status << ") ==\n" << t.to_text();
      if (!common.csv.empty()) tcu::write_text_file(common.csv, t.to_csv());
      return tcu::kExitOk;
    }

    const tcu::BandwidthProbe probe = tcu::run_bandwidth_probe();
    red::SegmentedOptions so;
    so.n = n;
    if (common.sweep) so.segment_sizes = tcu::sweep_segment_sizes(static_cast<int>(lo), static_cast<int>(hi), n, true);
    else if (warp_block) so.segment_sizes = tcu::paper_segment_sizes(8, static_cast<int>(hi));
    else so.segment_sizes = {segment};
    if (common.algo != "all") so.only = {common.algo};
    else if (warp_block)
      so.only = {tcu::reduce_algorithm_name(tcu::ReduceAlgorithm::reduction256n_efficient),
                 tcu::reduce_algorithm_name(tcu::ReduceAlgorithm::reduction256n_block),
                 tcu::reduce_algorithm_name(tcu::ReduceAlgorithm::reduction16n_strided),
                 red::baseline_name(red::Baseline::cub_warp_reduce), red::baseline_name(red::Baseline::cub_block_reduce)};
    so.dist = common.dist_value();
    so.seed = static_cast<std::uint64_t>(common.seed);
    so.timing = tcu::TimingConfig{static_cast<int>(common.warmup), static_cast<int>(common.repeat)};
    so.verify = !common.no_verify;
    so.progress = !common.json;
    so.cap_slow = !no_cap;
    so.input_offset = offset;
    so.baselines_only = baselines_only;
    const red::SegmentedReport rep = red::run_segmented(so, probe.read_stream.gb_per_s());
    if (auto why = tcu::missing_variant(rep.csv, common.algo)) return cli.usage_error(*why);

    if (common.json) {
      out << tcu::JsonObject()
                 .add("program", prog)
                 .add("device", info)
                 .add("read_stream_gb_per_s", rep.read_gb_per_s)
                 .add("baselines_cccl", tcu::format_cccl_version(tcu::built_cccl_version()))
                 .add("results", rep.csv)
                 .add("all_passed", rep.all_passed)
                 .dump();
    } else {
      out << "read stream (same run): " << rep.read_gb_per_s << " GB/s = "
          << tcu::read_gelem_ceiling(rep.read_gb_per_s, 2) << " G fp16 elements/s\n"
          << "baselines built against CCCL " << tcu::format_cccl_version(tcu::built_cccl_version()) << "\n"
          << "fp16 input, fp32 output; n = " << n << (offset ? ", input at d_in + " + std::to_string(offset) : "")
          << "\n\n"
          << rep.text.to_text();
      for (const std::string& note : rep.notes) out << "note: " << note << "\n";
      out << (rep.all_passed ? "\nAll checks PASS.\n" : "\nSome checks FAILED.\n");
    }
    if (!common.csv.empty()) tcu::write_text_file(common.csv, rep.csv.to_csv());
    return rep.all_passed ? tcu::kExitOk : tcu::kExitVerificationFailed;
  });
}
