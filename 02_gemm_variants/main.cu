// 02_gemm_variants: the GEMM ladder from a CPU loop to mma.sync, every step verified and timed
// against cuBLAS in the same run. This file parses the flags and prints what the library measured.
#include <iostream>
#include <string>
#include <vector>

#include "02_gemm_variants/gemm_bench.hpp"
#include "02_gemm_variants/gemm_report.hpp"
#include "02_gemm_variants/gemm_variants.cuh"
#include "common/chapter_main.hpp"
#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/exit_codes.hpp"
#include "common/report.hpp"

int main(int argc, char** argv) {
  namespace gm = tcu::gemm;
  const std::string prog = "02_gemm_variants";
  tcu::CliParser cli(prog,
                     "C = A*B (fp16 inputs, fp32 output) up the ladder of Shi & Xiao's study and beyond: CPU serial and\n"
                     "OpenMP, naive and tiled fp32/fp16, register-blocked, vectorised and warp-tiled fp32, warp-per-tile\n"
                     "fp16 (shared memory, shuffles), WMMA (naive, shared-memory tiles, cp.async pipeline), PTX mma.sync +\n"
                     "ldmatrix and Hopper's wgmma + TMA, against cublasGemmEx, cublasHgemm and cublasSgemm. Every result\n"
                     "is checked against an FP64 CPU reference and cuBLAS.");
  tcu::CommonOptions common;
  tcu::add_common_options(cli, common, gm::variant_names());
  std::int64_t m = 1024, n = 1024, k = 1024, budget_ms = 300;
  cli.add_int("--m", &m, "rows of A and C (default 1024)", 1, 65535LL * 64);
  cli.add_int("--n", &n, "columns of B and C (default 1024)", 1, 1LL << 30);
  cli.add_int("--k", &k, "columns of A, rows of B (default 1024)", 1, 1LL << 30);
  bool no_cublas = false;
  cli.add_flag("--no-cublas",
               &no_cublas,
               "leave cuBLAS out (no cublas_* rows, no % of cuBLAS; checked against FP64 alone, so sizes up to about "
               "1024^3): for compute-sanitizer runs with a kernel filter, whose racecheck cannot run cuBLAS's "
               "unchecked kernels beside the checked one");
  cli.add_int("--budget-ms", &budget_ms, "device time per measurement: slow variants are timed fewer times (default 300)",
              1, 100000);
  std::string variants_help = "Variants (--algo), in ladder order:\n";
  for (const gm::VariantInfo& v : gm::all_variants())
    variants_help += "  " + v.name + std::string(20 - v.name.size(), ' ') + v.summary + "\n";
  cli.add_epilog(variants_help +
                 "Layouts: A row-major MxK, B row-major KxN, C row-major MxN fp32 (cublas_hgemm: fp16).\n"
                 "CPU variants run only up to 1024 in every dimension (skipped, with a note, above).\n"
                 "--sweep: sizes 64,128,256,512,1024 (the study's) and 2048,4096,8192, square, every variant.\n"
                 "Examples:\n"
                 "  02_gemm_variants                              every variant at 1024^3\n"
                 "  02_gemm_variants --m 4096 --n 4096 --k 4096 --algo mma_sync_ldmatrix\n"
                 "  02_gemm_variants --m 33 --n 79 --k 19 --dist int    bit-exact integer check at odd sizes\n"
                 "  02_gemm_variants --sweep --csv gemm.csv       the README's table");
  if (int code = tcu::handle_cli(cli, argc, argv); code >= 0) return code;
  if (m * n > (1LL << 31) || m * k > (1LL << 31) || k * n > (1LL << 31)) {
    return cli.usage_error("matrices of more than 2^31 elements are not supported (M*N, M*K, K*N)");
  }
  if (no_cublas && (common.sweep || 2.0 * double(m) * double(n) * double(k) > gm::BenchOptions{}.full_reference_max_flops))
    return cli.usage_error("--no-cublas checks against the FP64 reference of every element alone: at most about 1024^3 "
                           "(2 M N K <= 2.2e9), and no --sweep");

  tcu::DeviceInfo info;
  if (int code = tcu::require_gpu(prog, static_cast<int>(common.device), info); code >= 0) return code;

  return tcu::run_guarded(prog, [&] {
    TCU_CUDA_CHECK(cudaSetDevice(static_cast<int>(common.device)));
    gm::BenchOptions opts;
    opts.dist = common.dist_value();
    opts.seed = static_cast<std::uint64_t>(common.seed);
    opts.repeat = static_cast<int>(common.repeat);
    opts.warmup = static_cast<int>(common.warmup);
    opts.budget_ms = static_cast<double>(budget_ms);
    opts.verify = !common.no_verify;
    opts.cublas = !no_cublas;

    std::vector<std::string> names;
    for (const std::string& name : gm::variant_names())
      if (common.wants(name) && !(no_cublas && name.rfind("cublas_", 0) == 0)) names.push_back(name);

    std::vector<gm::GemmProblem> sizes;
    if (common.sweep)
      for (std::int64_t s : gm::sweep_sizes()) sizes.push_back({s, s, s});
    else
      sizes.push_back({m, n, k});

    if (!common.json)
      std::cout << tcu::describe(info) << "\n"
                << "OpenMP threads for cpu_openmp: " << gm::cpu_openmp_threads() << "\n"
                << "data: " << tcu::dist_name(opts.dist) << ", seed " << opts.seed << "\n";
    std::vector<gm::BenchRow> all_rows;
    for (const gm::GemmProblem& p : sizes) {
      const gm::SizeResult r = gm::run_size(p, names, opts);
      if (!common.json) {
        std::cout << "\n== " << p.m << " x " << p.n << " x " << p.k << " ==\n" << gm::text_table(r.rows).to_text();
        for (const std::string& note : r.notes) std::cout << "note: " << note << "\n";
        for (const gm::BenchRow& row : r.rows)
          if (!row.pass) std::cout << "FAIL " << row.variant << ": " << row.detail << "\n";
      }
      all_rows.insert(all_rows.end(), r.rows.begin(), r.rows.end());
    }
    bool all_passed = true;
    for (const gm::BenchRow& row : all_rows) all_passed &= row.pass;
    const tcu::Table csv = gm::csv_table(all_rows);
    if (auto why = tcu::missing_variant(csv, common.algo)) return cli.usage_error(*why);
    if (common.json) {
      std::cout << tcu::JsonObject()
                       .add("program", prog)
                       .add("device", info)
                       .add("results", csv)
                       .add("all_passed", all_passed)
                       .dump();
    } else {
      std::cout << (all_passed ? "\nAll variants verified.\n" : "\nSome variants FAILED verification.\n");
    }
    if (!common.csv.empty()) tcu::write_text_file(common.csv, csv.to_csv());
    return all_passed ? tcu::kExitOk : tcu::kExitVerificationFailed;
  });
}
