// bandwidth_probe: the read-stream and copy ceilings of this GPU, the figures every chapter's
// "% of measured bandwidth" is relative to. Writes docs/results/<gpu>/bandwidth.csv. With
// --sums-every, also the ceiling of a segmented sum: the read stream plus its fp32 results.
#include <iostream>
#include <limits>
#include <vector>

#include "common/bandwidth.cuh"
#include "common/chapter_main.hpp"
#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/exit_codes.hpp"
#include "common/report.hpp"

int main(int argc, char** argv) {
  const std::string prog = "bandwidth_probe";
  std::int64_t bytes = -1;  // default: kDefaultProbeBytes, shrunk to fit smaller GPUs
  std::int64_t repeat = 30, warmup = 5, device = 0;
  std::string csv;
  std::vector<std::int64_t> sums_every;
  bool json = false;
  tcu::CliParser cli(prog,
                     "Measures memory ceilings with 16-byte accesses, timed with CUDA events (median\n"
                     "of --repeat runs after --warmup runs; read_stream and copy twice, the faster kept):\n"
                     "  read_stream  read every byte once, write nothing (a reduction's ceiling)\n"
                     "  copy         read and write every byte once (a scan's ceiling; bytes counted\n"
                     "               as read + written)\n"
                     "  read_sums_N  (with --sums-every N) read every byte once and write one fp32 per N fp16\n"
                     "               elements: the bytes of a sum of segments of N, in the simplest pattern\n"
                     "               (a segmented sum's ceiling; bytes counted as read + written)");
  cli.add_int("--bytes", &bytes,
              "working set per buffer (default 512M = 2^28 fp16 elements, or a quarter of the free GPU memory "
              "if that is less)",
              16 * 1024, std::numeric_limits<std::int64_t>::max());
  cli.add_int("--repeat", &repeat, "timed runs (default 30)", 1, 100000);
  cli.add_int("--warmup", &warmup, "untimed runs first (default 5)", 0, 1000);
  cli.add_int("--device", &device, "CUDA device ordinal (default 0)", 0, 1023);
  cli.add_string("--csv", &csv, "write probe,bytes,ms,gb_per_s to this file", tcu::check_writable_file,
                 "FILE");
  cli.add_int_list("--sums-every", &sums_every,
                   "also time read_sums_N for each N of this comma-separated list (each at least 8)", 8,
                   std::int64_t(1) << 40);
  cli.add_flag("--json", &json, "print JSON instead of a table");
  if (int code = tcu::handle_cli(cli, argc, argv); code >= 0) return code;

  tcu::DeviceInfo info;
  if (int code = tcu::require_gpu(prog, static_cast<int>(device), info); code >= 0) return code;

  return tcu::run_guarded(prog, [&] {
    TCU_CUDA_CHECK(cudaSetDevice(static_cast<int>(device)));
    std::size_t free_b = 0, total_b = 0;
    TCU_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes < 0) {
      bytes = 0;  // the default size
    } else if (static_cast<std::size_t>(bytes) > free_b / 2 - free_b / 16) {
      // The copy probe needs two buffers of this size, and the GPU some room besides.
      return cli.usage_error("--bytes " + std::to_string(bytes) + " needs two buffers, but the GPU has " +
                             std::to_string(free_b >> 20) + " MiB free: ask for at most " +
                             std::to_string((free_b / 2 - free_b / 16) >> 20) + " MiB");
    }
    const tcu::BandwidthProbe bw = tcu::run_bandwidth_probe(
        static_cast<std::size_t>(bytes), {static_cast<int>(warmup), static_cast<int>(repeat)});
    tcu::Table t({{"probe"}, {"bytes"}, {"ms", "%.4f"}, {"gb_per_s", "%.1f"}});
    for (const auto* r : {&bw.read_stream, &bw.copy})
      t.add_row({r->probe, static_cast<std::int64_t>(r->bytes), r->time.median_ms, r->gb_per_s()});
    std::vector<tcu::ReadSumsProbe> sums;
    for (const std::int64_t every : sums_every) {
      const tcu::ReadSumsProbe rs = tcu::run_read_sums_probe(
          every, static_cast<std::size_t>(bytes), {static_cast<int>(warmup), static_cast<int>(repeat)});
      if (!rs.all_written) {
        std::cerr << prog << ": " << rs.result.probe << " left outputs unwritten: its timing is not reported\n";
        return tcu::kExitVerificationFailed;
      }
      t.add_row({rs.result.probe, static_cast<std::int64_t>(rs.result.bytes), rs.result.time.median_ms,
                 rs.result.gb_per_s()});
      sums.push_back(rs);
    }
    if (json) {
      std::cout << tcu::JsonObject().add("program", prog).add("device", info).add("results", t).dump();
    } else {
      std::cout << tcu::describe(info) << "\n\n" << t.to_text();
      std::cout << "\nTheoretical DRAM bandwidth from clock and bus width: "
                << static_cast<int>(info.theoretical_bandwidth_gb_per_s()) << " GB/s. Timing spread (min..max ms): read "
                << bw.read_stream.time.min_ms << ".." << bw.read_stream.time.max_ms << ", copy "
                << bw.copy.time.min_ms << ".." << bw.copy.time.max_ms << "\n";
      for (const tcu::ReadSumsProbe& rs : sums) {  // what a sum of segments of N can reach
        const double read = bw.read_stream.gb_per_s();
        std::cout << rs.result.probe << ": " << 100.0 * rs.result.gb_per_s() / read
                  << " % of read_stream counting the writes, "
                  << 100.0 * static_cast<double>(rs.input_bytes) / (rs.result.time.median_ms * 1e6) / read
                  << " % counting the fp16 input alone\n";
      }
    }
    if (!csv.empty()) tcu::write_text_file(csv, t.to_csv());
    return tcu::kExitOk;
  });
}
