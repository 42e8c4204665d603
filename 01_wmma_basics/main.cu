// 01_wmma_basics: fragments, shapes, layouts, mma_sync and the alignment rules, every result
// checked against the CPU. The lesson itself lives in lesson.cpp; this file parses the flags,
// finds the GPU and prints what the sections found.
#include <iostream>
#include <string>

#include "01_wmma_basics/alignment_demo.hpp"
#include "01_wmma_basics/lesson.hpp"
#include "common/chapter_main.hpp"
#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/exit_codes.hpp"
#include "common/report.hpp"

int main(int argc, char** argv) {
  namespace wb = tcu::wmma_basics;
  const std::string prog = "01_wmma_basics";
  tcu::CliParser cli(prog,
                     "Tensor cores through WMMA, one warp and one tile at a time: products in every fp16 shape and\n"
                     "accumulator (bf16 and tf32 on sm_80+), row/column-major operands, fill_fragment and\n"
                     "element-wise fragment operations, the fragment layout of this GPU, the documented PTX\n"
                     "mma.m16n8k16 layout, the alignment rules and what breaking them does, and a preview of the\n"
                     "constant matrices P, U, L, 1. Every product is checked against an FP64 CPU reference.");
  tcu::CommonOptions common;
  tcu::add_common_options(cli, common, wb::kLessonSections);
  std::int64_t seeds = 3, broken_case = 0;
  bool no_broken_demo = false;
  cli.add_int("--seeds", &seeds, "input sets per check: seeds --seed, --seed + 1, ... (default 3)", 1, 1000);
  cli.add_flag("--no-broken-demo", &no_broken_demo,
               "do not run the rule-breaking kernels in child processes (for compute-sanitizer runs)");
  cli.add_int("--internal-broken-case", &broken_case,
              "internal: run broken alignment case N (1-3) here and print its outcome (the alignment "
              "section's child process)",
              1, wb::kBrokenCaseCount);
  cli.add_epilog(
      "Sections (--algo): products, shapes, layouts, elementwise, fragment_map, ptx_mma, alignment, constants.\n"
      "--repeat, --warmup and --sweep have no effect here: this chapter checks, it does not time.\n"
      "Examples:\n"
      "  01_wmma_basics                         the whole lesson\n"
      "  01_wmma_basics --algo fragment_map     only the lane -> (row, col) maps of this GPU\n"
      "  01_wmma_basics --dist int --json       bit-exact checks, results as JSON");
  if (int code = tcu::handle_cli(cli, argc, argv); code >= 0) return code;

  tcu::DeviceInfo info;
  if (int code = tcu::require_gpu(prog, static_cast<int>(common.device), info); code >= 0) return code;

  return tcu::run_guarded(prog, [&] {
    TCU_CUDA_CHECK(cudaSetDevice(static_cast<int>(common.device)));
    if (broken_case != 0)
      return wb::run_broken_case_here(static_cast<int>(broken_case), common.dist_value(),
                                      static_cast<std::uint64_t>(common.seed), static_cast<int>(common.device));

    wb::LessonOptions opts;
    opts.dist = common.dist_value();
    opts.seed = static_cast<std::uint64_t>(common.seed);
    opts.seeds = static_cast<int>(seeds);
    opts.verify = !common.no_verify;
    opts.broken_demo = !no_broken_demo;
    opts.device = static_cast<int>(common.device);

    std::ostream discard(nullptr);  // no buffer: everything written to it is dropped
    wb::LessonReport report(common.json ? discard : std::cout);
    report.out << tcu::describe(info) << "\n";
    for (const std::string& section : wb::kLessonSections)
      if (common.wants(section)) wb::run_lesson_section(section, opts, report);
    if (auto why = tcu::missing_variant(report.table(), common.algo)) return cli.usage_error(*why);

    if (common.json) {
      std::cout << tcu::JsonObject()
                       .add("program", prog)
                       .add("device", info)
                       .add("results", report.table())
                       .add("all_passed", report.all_passed())
                       .dump();
    } else {
      std::cout << "\n== results ==\n" << report.table().to_text();
      std::cout << (report.all_passed() ? "\nAll checks passed.\n"
                                        : "\n" + std::to_string(report.failures()) + " check(s) FAILED.\n");
    }
    if (!common.csv.empty()) tcu::write_text_file(common.csv, report.table().to_csv());
    return report.all_passed() ? tcu::kExitOk : tcu::kExitVerificationFailed;
  });
}
