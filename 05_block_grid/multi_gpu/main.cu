// 05_multi_gpu: sums and prefix sums of one fp16 array split across the GPUs of this node
// (tcu::multi_gpu, NCCL), against chapter 05's one-GPU DeviceReduce / DeviceScan over the same
// total, with each GPU's bandwidth measured in the same run. This file parses the flags and calls
// the library.
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "05_block_grid/multi_gpu/measure.hpp"
#include "05_block_grid/multi_gpu/multi_gpu.cuh"
#include "common/chapter_main.hpp"
#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/device_info.cuh"
#include "common/exit_codes.hpp"
#include "common/report.hpp"

int main(int argc, char** argv) {
  namespace mb = tcu::multi_gpu::bench;
  const std::string prog = "05_multi_gpu";
  tcu::CliParser cli(prog,
                     "The last level of the hierarchy: tcu::multi_gpu::Sum, InclusiveSum and ExclusiveSum of one fp16\n"
                     "array split across the GPUs of this node (one NCCL communicator, one stream per GPU), fp32\n"
                     "out; each GPU reduces its shard, ncclAllGather shares the totals, each GPU adds those before it\n"
                     "and scans its shard from that carry. Compared with chapter 05's DeviceReduce / DeviceScan on\n"
                     "one GPU over the same total, checked against an FP64 CPU reference, with each GPU's read-stream\n"
                     "and copy bandwidth (and the host links, for the from-host forms) measured in the same run.");
  tcu::CommonOptions common;
  std::int64_t n = std::int64_t(1) << 24;
  std::int64_t gpus = -1;
  std::string op = "all";
  cli.add_int("--n", &n, "elements per GPU (default 2^24); the array holds n × GPUs", 1, std::int64_t(1) << 33);
  cli.add_int("--gpus", &gpus, "GPUs to use, ranks 0 … N−1 on devices 0 … N−1 (default: every visible GPU)", 1,
              1024);
  cli.add_string("--op", &op, "which operations (default all): reduce, scan (inclusive and exclusive), from_host",
                 {"all", "reduce", "scan", "from_host"});
  cli.add_string("--dist", &common.dist,
                 "input data: uniform [0,1), normal N(0,1), ones, int (integers in [-4,4]: exact sums)",
                 {"uniform", "normal", "ones", "int"});
  cli.add_int("--seed", &common.seed, "seed of the input data (default " + std::to_string(common.seed) + ")", 0,
              std::numeric_limits<std::int64_t>::max());
  cli.add_int("--repeat", &common.repeat, "timed runs per measurement; the median is reported (default 20)", 1,
              100000);
  cli.add_int("--warmup", &common.warmup, "untimed runs before timing (default 3)", 0, 1000);
  cli.add_string("--csv", &common.csv, "also write the results table to this CSV file", tcu::check_writable_file,
                 "FILE");
  cli.add_flag("--json", &common.json, "print the results as JSON on stdout instead of tables");
  cli.add_flag("--no-verify", &common.no_verify, "skip the CPU checks (timing only)");
  cli.add_epilog(
      "Rows: each operation on one GPU over the whole array (chapter 05's API; the from-host forms:\n"
      "  tcu::multi_gpu on a one-GPU communicator) and on --gpus GPUs; speedup = one GPU's time / theirs.\n"
      "Timing: CUDA events on GPU 0: a start event every other GPU's stream waits for, a stop event after\n"
      "  GPU 0's stream has waited for every other GPU's last work: from the first start to the last end.\n"
      "pct_of_aggregate_bw: bytes_per_elem × n per second, % of the summed read-stream (sums) or copy\n"
      "  (scans) bandwidth of the GPUs in the row, or of their host links measured all at once (from host).\n"
      "speedup_bound: the byte model's (sums: G; scans: G·6/8; from host: the links' aggregate / one).\n"
      "check: exact (--dist int while Σ|x| <= 2^24, bit for bit) or bound (derived tolerance).\n"
      "Examples:\n"
      "  05_multi_gpu --n 2^30 --csv multi_gpu.csv   every operation, 2^30 elements per GPU\n"
      "  05_multi_gpu --gpus 1 --op scan              the API on one GPU against DeviceScan\n"
      "  05_multi_gpu --n 2^20 --dist int --json      bit-exact checks, results as JSON");
  if (int code = tcu::handle_cli(cli, argc, argv); code >= 0) return code;

  tcu::DeviceInfo info;
  if (int code = tcu::require_gpu(prog, 0, info); code >= 0) return code;
  const std::vector<int> visible = tcu::multi_gpu::all_devices();
  const int count = static_cast<int>(visible.size());
  if (gpus > count)
    return cli.usage_error("--gpus " + std::to_string(gpus) + ": only " + std::to_string(count) +
                           (count == 1 ? " GPU is visible" : " GPUs are visible"));
  const int used = gpus > 0 ? static_cast<int>(gpus) : count;
  std::vector<int> devices(visible.begin(), visible.begin() + used);
  for (int d : devices) {
    const tcu::GpuCheck c = tcu::check_gpu(7, 0, d);
    if (!c.ok) {
      std::cerr << prog << ": GPU " << d << ": " << c.message << "\n";
      return tcu::kExitNoGpu;
    }
    // Each GPU holds its shard (fp16 in, fp32 out) and a probe of twice 512 MiB at most.
    std::size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(d) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess &&
        6.0 * static_cast<double>(n) + (std::size_t(1) << 30) > static_cast<double>(free_b))
      return cli.usage_error("--n " + std::to_string(n) + " needs " +
                             std::to_string((6.0 * static_cast<double>(n) + (1 << 30)) / (1 << 30)) +
                             " GiB on each GPU; GPU " + std::to_string(d) + " has " +
                             std::to_string(static_cast<double>(free_b) / (1 << 30)) + " GiB free");
  }

  return tcu::run_guarded(prog, [&] {
    TCU_CUDA_CHECK(cudaSetDevice(devices[0]));
    std::ostream& out = std::cout;
    if (!common.json) {
      out << tcu::describe(info) << "\n";
      out << used << " GPU(s):";
      for (int d : devices) out << " [" << d << "] " << tcu::query_device(d).name;
      out << "\n";
    }
    mb::Options o;
    o.n_per_gpu = n;
    o.devices = devices;
    o.ops = mb::ops_for(op);
    o.dist = common.dist_value();
    o.seed = static_cast<std::uint64_t>(common.seed);
    o.timing = tcu::TimingConfig{static_cast<int>(common.warmup), static_cast<int>(common.repeat)};
    o.verify = !common.no_verify;
    o.progress = !common.json;
    const mb::Report rep = mb::run_benchmarks(o);
    if (common.json) {
      out << tcu::JsonObject()
                 .add("program", prog)
                 .add("device", info)
                 .add("gpus", std::int64_t(used))
                 .add("n_per_gpu", n)
                 .add("read_stream_gb_per_s_all_gpus", rep.read_gb_per_s)
                 .add("copy_gb_per_s_all_gpus", rep.copy_gb_per_s)
                 .add("read_stream_gb_per_s_gpu0", rep.gpu0_read_gb_per_s)
                 .add("copy_gb_per_s_gpu0", rep.gpu0_copy_gb_per_s)
                 .add("h2d_gb_per_s_all_gpus", rep.h2d_gb_per_s)
                 .add("h2d_gb_per_s_gpu0", rep.gpu0_h2d_gb_per_s)
                 .add("results", rep.table)
                 .add("all_passed", rep.all_passed)
                 .dump();
    } else {
      out << "same run, summed over the " << used << " GPU(s): read stream " << rep.read_gb_per_s << " GB/s, copy "
          << rep.copy_gb_per_s << " GB/s (GPU 0: " << rep.gpu0_read_gb_per_s << ", " << rep.gpu0_copy_gb_per_s << ")";
      if (rep.h2d_gb_per_s > 0)
        out << "; host to device, pinned: " << rep.h2d_gb_per_s << " GB/s all at once (GPU 0 alone: "
            << rep.gpu0_h2d_gb_per_s << ")";
      out << "\n\n" << rep.table.to_text();
      for (const std::string& note : rep.notes) out << "note: " << note << "\n";
      out << (common.no_verify ? "\nChecks skipped (--no-verify): timings only.\n"
               : rep.all_passed ? "\nAll checks PASS.\n"
                                : "\nSome checks FAILED.\n");
    }
    if (!common.csv.empty()) tcu::write_text_file(common.csv, rep.table.to_csv());
    return rep.all_passed ? tcu::kExitOk : tcu::kExitVerificationFailed;
  });
}
