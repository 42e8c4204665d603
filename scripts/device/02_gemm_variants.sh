# Chapter 02's part of scripts/device_check.sh (sourced; see that script for step, BUILD, RES).
# The ladder sweep (every variant at 64 … 8192, CPU variants up to 1024) → gemm.csv, the
# rows at 4096 → gemm_4096.csv (the README's compact table), the goals (4096 and 8192) →
# gemm_goals.csv, and a short summary.
if [ -x "$BUILD/bin/02_gemm_variants" ]; then
  step "02_gemm_variants --sweep (every variant, 64..8192)" "$LOG" sh -c \
    "'$BUILD/bin/02_gemm_variants' --sweep --repeat 20 --budget-ms 200 --csv '$RES/gemm.csv' > '$RES/gemm_output.txt'"
  step "02_gemm_variants --dist int 257x129x131 (bit-exact)" "$LOG" \
    "$BUILD/bin/02_gemm_variants" --m 257 --n 129 --k 131 --dist int --repeat 3
  gemm_summary() {
    python3 - "$RES/gemm.csv" "$RES/gemm_4096.csv" "$RES/02_summary.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
at = [r for r in rows if r["m"] == "4096"]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["variant", "ms", "tflops", "pct_of_cublas", "max_rel_err", "pass"])
    for r in at:
        w.writerow([r["variant"], f"{float(r['ms']):.4g}", f"{float(r['tflops']):.4g}",
                    f"{float(r['pct_of_cublas']):.1f}", f"{float(r['max_rel_err']):.2e}", r["pass"]])
FP32_STEPS = {"naive_fp32", "tiled_fp32", "blocktile_1d_fp32", "blocktile_2d_fp32", "vectorized_fp32", "warptile_fp32"}
WMMA_STEPS = {"wmma_naive", "wmma_shmem", "wmma_pipelined"}
HOPPER_STEPS = {"wgmma_tma", "wgmma_ws"}
def rows_at(size):
    return [r for r in rows if r["m"] == str(size)]
def best(at, names):
    return max((r for r in at if r["variant"] in names), key=lambda r: float(r["tflops"]), default=None)
def base(at, name):
    return next((r for r in at if r["variant"] == name), None)
def pct(names, baseline="cublas_gemmex", size=4096):
    at = rows_at(size)
    b, ref = best(at, names), base(at, baseline)
    if not b or not ref:
        return "n/a"
    return f"{b['variant']} {float(b['tflops']):.1f} TFLOP/s = {100 * float(b['tflops']) / float(ref['tflops']):.1f} % of {baseline}"
gx = base(at, "cublas_gemmex")
# The chapter's goals (the README's results:gemm_goals table): % of the baseline's TFLOP/s at
# the same size in the same run.
GOALS = [(WMMA_STEPS, "cublas_gemmex", 4096, 50), ({"mma_sync_ldmatrix"}, "cublas_gemmex", 4096, 70),
         (FP32_STEPS, "cublas_sgemm", 4096, 75),
         (HOPPER_STEPS, "cublas_gemmex", 4096, 90), (HOPPER_STEPS, "cublas_gemmex", 8192, 90)]
with open(sys.argv[2].replace("gemm_4096.csv", "gemm_goals.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["kernel", "size", "tflops", "baseline", "baseline_tflops", "pct_of_baseline", "goal_pct", "met"])
    for names, baseline, size, goal in GOALS:
        at_size = rows_at(size)
        b, ref = best(at_size, names), base(at_size, baseline)
        if b and ref:
            p = 100 * float(b["tflops"]) / float(ref["tflops"])
            w.writerow([b["variant"], f"{size}^3", f"{float(b['tflops']):.1f}", baseline, f"{float(ref['tflops']):.1f}",
                        f"{p:.1f}", goal, "yes" if p >= goal else "no"])
fails = [f"{r['variant']}@{r['m']}" for r in rows if r["pass"] != "true"]
with open(sys.argv[3], "w") as f:
    f.write(f"4096^3: cublas_gemmex {float(gx['tflops']):.0f} TFLOP/s\n" if gx else "4096^3: no cublas_gemmex row\n")
    f.write("4096^3 best WMMA: " + pct(WMMA_STEPS) + " (goal >= 50 %)\n")
    f.write("4096^3 mma.sync: " + pct({"mma_sync_ldmatrix"}) + " (stretch goal >= 70 %)\n")
    f.write("4096^3 best fp32 CUDA-core step: " + pct(FP32_STEPS, "cublas_sgemm") + " (goal >= 75 %)\n")
    for size in (4096, 8192):
        f.write(f"{size}^3 best wgmma step: " + pct(HOPPER_STEPS, size=size) + " (goal >= 90 %)\n")
        f.write(f"{size}^3 wgmma_tma: " + pct({"wgmma_tma"}, size=size) + ", wgmma_ws: " + pct({"wgmma_ws"}, size=size) + "\n")
    f.write(f"gemm.csv: {len(rows)} rows, {len(fails)} failed verification {' '.join(fails)}\n")
print(open(sys.argv[3]).read(), end="")
sys.exit(1 if fails or not at else 0)
PY
  }
  step "02 gemm_4096.csv and 02_summary.txt" "$LOG" gemm_summary
fi
