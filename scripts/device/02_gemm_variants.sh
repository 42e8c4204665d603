# Chapter 02's part of scripts/device_check.sh (sourced; see that script for step, BUILD, RES).
# The ladder sweep (every variant at 64 … 8192, CPU variants up to 1024) → gemm.csv, the
# rows at 4096 → gemm_4096.csv (the README's compact table), the goals → gemm_goals.csv, and a
# short summary.
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
def pct(names):
    best = max((r for r in at if r["variant"] in names), key=lambda r: float(r["tflops"]), default=None)
    return f"{best['variant']} {float(best['tflops']):.0f} TFLOP/s = {float(best['pct_of_cublas']):.1f} % of cublas_gemmex" if best else "n/a"
gx = next((r for r in at if r["variant"] == "cublas_gemmex"), None)
# The issue's goals at 4096^3 (the README's results:gemm_goals table).
with open(sys.argv[2].replace("gemm_4096.csv", "gemm_goals.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["kernel", "size", "tflops", "cublas_gemmex_tflops", "pct_of_cublas", "goal_pct", "met"])
    for names, goal in (({"wmma_naive", "wmma_shmem", "wmma_pipelined"}, 50), ({"mma_sync_ldmatrix"}, 70)):
        best = max((r for r in at if r["variant"] in names), key=lambda r: float(r["tflops"]), default=None)
        if best and gx:
            p = float(best["pct_of_cublas"])
            w.writerow([best["variant"], "4096^3", f"{float(best['tflops']):.1f}", f"{float(gx['tflops']):.1f}",
                        f"{p:.1f}", goal, "yes" if p >= goal else "no"])
fails = [f"{r['variant']}@{r['m']}" for r in rows if r["pass"] != "true"]
with open(sys.argv[3], "w") as f:
    f.write(f"4096^3: cublas_gemmex {float(gx['tflops']):.0f} TFLOP/s\n" if gx else "4096^3: no cublas_gemmex row\n")
    f.write("4096^3 best WMMA: " + pct({"wmma_naive", "wmma_shmem", "wmma_pipelined"}) + " (goal >= 50 %)\n")
    f.write("4096^3 mma.sync: " + pct({"mma_sync_ldmatrix"}) + " (stretch goal >= 70 %)\n")
    f.write(f"gemm.csv: {len(rows)} rows, {len(fails)} failed verification {' '.join(fails)}\n")
print(open(sys.argv[3]).read(), end="")
sys.exit(1 if fails or not at else 0)
PY
  }
  step "02 gemm_4096.csv and 02_summary.txt" "$LOG" gemm_summary
fi
