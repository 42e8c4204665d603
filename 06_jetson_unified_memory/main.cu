// 06_jetson_unified_memory: one workflow (host fills n fp16 values, the GPU sums them with
// tcu::DeviceReduce::Sum on tensor cores, the host reads the sum) done five ways, timed phase by
// phase, next to the CPU. This file parses the flags, checks the sizes against the memory
// there is, and prints what the library measured.
#include <cuda_runtime.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "06_jetson_unified_memory/host_data.hpp"
#include "06_jetson_unified_memory/memory_budget.hpp"
#include "06_jetson_unified_memory/unified_memory.hpp"
#include "06_jetson_unified_memory/workflow.hpp"
#include "common/bandwidth.cuh"
#include "common/chapter_main.hpp"
#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/exit_codes.hpp"
#include "common/report.hpp"

namespace um = tcu::unified_memory;

int main(int argc, char** argv) {
  const std::string prog = "06_jetson_unified_memory";
  tcu::CliParser cli(prog,
                     "Where the data lives: the host fills n fp16 values, the GPU sums them with chapter 05's\n"
                     "tcu::DeviceReduce::Sum on tensor cores, the host reads the sum - with pageable memory +\n"
                     "cudaMemcpy, pinned memory + cudaMemcpyAsync, cudaMallocManaged (first touch), managed +\n"
                     "cudaMemAdvise/cudaMemPrefetchAsync, and mapped pinned zero-copy memory; the CPU (serial and\n"
                     "OpenMP) alongside. Each phase (alloc, fill, transfer, kernel, readback) is timed with the\n"
                     "host's steady clock, the kernel also with CUDA events; medians of fresh workflows; every sum\n"
                     "verified against an FP64 CPU sum.");
  tcu::CommonOptions common;
  common.repeat = 5;  // each repetition is a whole workflow with fresh allocations
  common.warmup = 1;
  tcu::add_common_options(cli, common, um::mode_names());
  std::int64_t n = 0, bytes = 0, sweep_max = um::kSweepMaxBytes;
  bool no_probe = false;
  cli.add_int("--n", &n, "fp16 elements (e.g. 2^28, 64M); default 32M (64 MiB)", 1, std::int64_t(1) << 40);
  cli.add_int("--bytes", &bytes, "input size in bytes instead of --n (even: 2 per element)", 1,
              std::int64_t(1) << 42);
  cli.add_int("--sweep-max", &sweep_max, "largest size of --sweep in bytes (default 1G)", 2, std::int64_t(1) << 42);
  cli.add_flag("--no-probe", &no_probe, "skip the read-stream bandwidth probe (no % of read stream column)");
  cli.add_epilog(
      "Modes (--algo): pageable, pinned, managed, managed_prefetch, zero_copy, cpu_serial, cpu_openmp.\n"
      "Here --repeat defaults to 5 and --warmup to 1: each repetition is a whole workflow on fresh buffers.\n"
      "--sweep runs 1 MiB, 4 MiB, ... up to --sweep-max (default 1 GiB); sizes that do not fit are left out.\n"
      "Sizes that do not fit in the GPU's free memory or the host's available memory are refused (exit 2):\n"
      "managed memory is never over-subscribed.\n"
      "Examples:\n"
      "  06_jetson_unified_memory                          all modes, 64 MiB\n"
      "  06_jetson_unified_memory --n 2^28 --algo managed  one mode, 2^28 elements (512 MiB)\n"
      "  06_jetson_unified_memory --sweep --csv um.csv     1 MiB ... 1 GiB, CSV for plot_results.py");
  if (int code = tcu::handle_cli(cli, argc, argv); code >= 0) return code;

  um::SizeRequest req;
  req.n = n;
  req.bytes = bytes;
  req.sweep = common.sweep;
  req.sweep_min = um::kSweepMinBytes;
  req.sweep_max = std::max(sweep_max, um::kSweepMinBytes);
  const um::SizePlan plan = um::plan_sizes(req);
  if (!plan.error.empty()) {
    return cli.usage_error(plan.error);
  }

  tcu::DeviceInfo info;
  if (int code = tcu::require_gpu(prog, static_cast<int>(common.device), info); code >= 0) return code;

  return tcu::run_guarded(prog, [&] {
    const int device = static_cast<int>(common.device);
    TCU_CUDA_CHECK(cudaSetDevice(device));
    TCU_CUDA_CHECK(cudaFree(nullptr));  // create the context now, outside every timing
    const um::Platform platform = um::query_platform(device);
    auto all_modes = um::make_modes();
    std::vector<const um::Mode*> modes;
    for (const auto& m : all_modes)
      if (common.wants(m->name())) modes.push_back(m.get());

    // Sizes against the memory there is: an explicit size that does not fit is a usage error.
    const um::MemoryBudget budget = um::query_memory_budget(platform.integrated);
    std::vector<std::int64_t> sizes;
    for (std::int64_t elements : plan.elements) {
      um::MemoryNeed worst{0, 0, static_cast<std::uint64_t>(elements) * 2};  // the reference's buffer
      for (const um::Mode* m : modes) {
        if (m->unsupported(platform)) continue;
        const um::MemoryNeed need = m->memory_need(elements);
        worst.device = std::max(worst.device, need.device);
        worst.managed = std::max(worst.managed, need.managed);
        worst.host = std::max(worst.host, need.host);
      }
      const std::string what = std::to_string(elements) + " fp16 elements (" +
                               um::format_bytes(static_cast<std::uint64_t>(elements) * 2) + ")";
      if (auto err = um::check_fits(worst, budget, what)) {
        if (!common.sweep) {
          return cli.usage_error(*err);
        }
        std::cerr << prog << ": sweep: leaving out " << *err << "\n";
        continue;
      }
      sizes.push_back(elements);
    }
    if (sizes.empty()) {
      return cli.usage_error("no size of the sweep fits in memory");
    }

    double read_stream = 0;
    if (!no_probe) read_stream = tcu::run_bandwidth_probe(0, {2, 10}).read_stream.gb_per_s();

    if (!common.json) {
      std::cout << tcu::describe(info) << "\n" << um::describe_platform(platform) << "\n\n"
                << um::explain_ranking(platform) << "\n\n";
      for (const um::Mode* m : modes) std::cout << "  " << m->name() << ": " << m->summary() << "\n";
      std::cout << "\n";
    }

    um::MeasureConfig cfg;
    cfg.warmup = static_cast<int>(common.warmup);
    cfg.repeat = static_cast<int>(common.repeat);
    cfg.verify = !common.no_verify;
    std::vector<um::ModeReport> reports;
    tcu::Progress progress(prog, static_cast<int>(sizes.size() * modes.size()), sizes.size() > 1 || !common.json);
    for (std::int64_t elements : sizes) {
      um::Workload w;
      w.n = elements;
      w.dist = common.dist_value();
      w.seed = static_cast<std::uint64_t>(common.seed);
      w.device = device;
      const tcu::SumRef ref = cfg.verify ? um::reference_for(w) : tcu::SumRef{};
      for (const um::Mode* m : modes) {
        reports.push_back(um::measure(*m, w, platform, ref, cfg));
        progress.step(m->name() + ", " + um::format_bytes(w.bytes()));
      }
    }

    bool all_passed = true;
    for (const auto& r : reports) all_passed = all_passed && r.pass;
    const tcu::Table csv = um::csv_table(reports);
    if (auto why = tcu::missing_variant(csv, common.algo)) return cli.usage_error(*why);
    if (common.json) {
      tcu::JsonObject plat;
      plat.add("integrated", platform.integrated)
          .add("concurrent_managed_access", platform.concurrent_managed_access)
          .add("pageable_memory_access", platform.pageable_memory_access)
          .add("can_map_host_memory", platform.can_map_host_memory);
      std::cout << tcu::JsonObject()
                       .add("program", prog)
                       .add("device", info)
                       .add("platform", plat)
                       .add("read_stream_gb_per_s", read_stream)
                       .add("results", um::text_table(reports, read_stream))
                       .add("all_passed", all_passed)
                       .dump();
    } else {
      std::cout << "== median of " << cfg.repeat << " workflows per mode (after " << cfg.warmup
                << " warm-up), fp16 input, --dist " << tcu::dist_name(common.dist_value())
                << "; host fill and OpenMP use " << um::host_threads() << " threads ==\n"
                << um::text_table(reports, read_stream).to_text();
      if (read_stream > 0)
        std::cout << "read-stream bandwidth measured in this run: " << read_stream << " GB/s\n";
      std::cout << "Timings: host steady clock around synchronised work (phases include host work); "
                   "'kernel (events)' is the same\nreduction seen by CUDA events. Freeing is not timed. "
                   "Medians of each phase do not add up to the median total.\n";
      std::cout << (all_passed ? "\nAll results verified.\n" : "\nSome results FAILED verification.\n");
    }
    if (!common.csv.empty()) tcu::write_text_file(common.csv, csv.to_csv());
    return all_passed ? tcu::kExitOk : tcu::kExitVerificationFailed;
  });
}
