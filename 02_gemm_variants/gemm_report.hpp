#pragma once
// The ladder's results as tables: the printed one and the CSV (exact columns
// variant,m,n,k,ms,tflops,pct_of_cublas,max_rel_err,pass — docs/results/<gpu>/gemm.csv).
#include <vector>

#include "02_gemm_variants/gemm_bench.hpp"
#include "common/report.hpp"

namespace tcu::gemm {

inline Table csv_table(const std::vector<BenchRow>& rows) {
  Table t({{"variant"}, {"m"}, {"n"}, {"k"}, {"ms"}, {"tflops"}, {"pct_of_cublas"}, {"max_rel_err"}, {"pass"}});
  for (const BenchRow& r : rows)
    t.add_row({r.variant, r.p.m, r.p.n, r.p.k, r.ms, r.tflops, r.pct_of_cublas, r.max_rel_err, r.pass});
  return t;
}

inline Table text_table(const std::vector<BenchRow>& rows) {
  Table t({{"variant"}, {"ms", "%.4f"}, {"TFLOP/s", "%.2f"}, {"% cuBLAS", "%.1f"}, {"x cuBLAS", "%.3f"},
           {"max rel err", "%.2e"}, {"check"}, {"verified against"}});
  for (const BenchRow& r : rows)
    t.add_row({r.variant, r.ms, r.tflops, r.pct_of_cublas, r.pct_of_cublas / 100.0, r.max_rel_err,
               std::string(!r.verified ? "-" : r.pass ? "PASS" : "FAIL"), r.reference});
  return t;
}

}  // namespace tcu::gemm
