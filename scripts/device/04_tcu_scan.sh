# Chapter 04's part of scripts/device_check.sh (sourced; see that script for step, BUILD, RES).
# The sweep of Dakkak Fig. 12 (n = 2^28, segments 2^4 … 2^16, odd sizes and the whole array,
# fp16 and fp32 outputs, every tensor-core scan, auto and the Thrust/CUB baselines, with the
# copy probe of the same run; with build-cccl-latest also the newest CCCL's CUB rows, renamed
# cub_latest_*), a bit-exact exclusive run, and the goals: segmented_scan_goals.csv (auto vs
# the best baseline per size), segmented_scan_best.csv, segmented_scan_warp_vs_block.csv.
# (Tests and sanitizers: the main script.)
if [ -x "$BUILD/bin/04_tcu_scan" ]; then
  step "04_tcu_scan --sweep (n = 2^28, segments 2^4..2^16, fp16 + fp32 out)" "$LOG" sh -c \
    "'$BUILD/bin/04_tcu_scan' --sweep --repeat 10 --csv '$RES/segmented_scan.csv' > '$RES/scan_output.txt'"
  L04="${LATEST_BUILD:-build-cccl-latest}/bin/04_tcu_scan"
  if [ -x "$L04" ]; then
    step "04 sweep, CUB rows built against the newest CCCL ($L04)" "$LOG" sh -c \
      "'$L04' --sweep --baselines-only cub --repeat 10 --csv '$RES/segmented_scan_cccl_latest.csv' > '$RES/scan_cccl_latest_output.txt'"
    step "04 merge cub_latest_* rows into segmented_scan.csv" "$LOG" merge_cccl_latest \
      "$RES/segmented_scan.csv" "$RES/segmented_scan_cccl_latest.csv" "$RES/scan_cccl_latest_output.txt"
  else
    echo "04: no $L04 (newest CCCL not fetched or not built): cub_latest_* rows skipped" | tee -a "$LOG" >&2
  fi
  step "04_tcu_scan --exclusive --dist int --json (bit-exact, valid JSON)" "$LOG" sh -c \
    "'$BUILD/bin/04_tcu_scan' --n 2^24 --segment-size 1000 --exclusive --dist int --json --repeat 3 | python3 -c 'import json, sys; d = json.load(sys.stdin); print(len(d[\"results\"]), \"rows\"); sys.exit(0 if d[\"all_passed\"] else 1)'"
  if [ -f "$RES/segmented_scan.csv" ]; then
    python3 - "$RES" >"$RES/04_summary.txt" 2>&1 <<'PY'
# Per segment size and output type: the auto row (the API's choice) against the best baseline
# of that size (cub_latest_* included) in % of the effective bandwidth (bytes read + written
# against the copy probe of the same run), and the goals: >= 85 % (fp16 out) / >= 90 % (fp32
# out) and >= 1.0x the best baseline -> segmented_scan_goals.csv. Also the best tensor-core
# variant per size (segmented_scan_best.csv) and Dakkak Fig. 11's warp vs block view. Baselines
# are the rows named cub_* or thrust_*; TCU algorithm names are never listed here.
import csv, os, re, sys
sys.path.insert(0, os.path.join("scripts", "device"))
from baselines import Baselines
res = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(res, "segmented_scan.csv"))))
base = Baselines(res, "scan_output.txt", "scan_cccl_latest_output.txt")
is_baseline, cccl_of = base.is_baseline, base.cccl_of
fails = [r for r in rows if r["pass"] == "FAIL"]
unchecked = [r for r in rows if r["pass"] not in ("PASS", "FAIL")]
print(f"{len(rows)} rows, {len(fails)} FAIL, {len(unchecked)} not verified (fp16 sums beyond fp16's range)"
      + (": FAIL " + ", ".join(f"{r['algo']}/{r['out_type']}/{r['segment_size']}" for r in fails[:6]) if fails else ""))
print(base.header())
sizes = sorted({int(r["segment_size"]) for r in rows})
GOAL_RATIO = 1.0
goal_rows, best_rows, wb_rows = [], [], []
wb_cols = ("scan256n", "scan16n", "scan256_block", "matmulscan", "cub_warp_scan", "cub_block_scan")
for ot, goal in (("fp16", 85.0), ("fp32", 90.0)):
    line = []
    for s in sizes:
        sel = {r["algo"]: r for r in rows if r["out_type"] == ot and int(r["segment_size"]) == s}
        auto = sel.get("auto")
        bl = max((r for a, r in sel.items() if is_baseline(a)), key=lambda r: float(r["gelem_per_s"]), default=None)
        tcu = max((r for a, r in sel.items() if not is_baseline(a) and a != "auto"),
                  key=lambda r: float(r["gelem_per_s"]), default=None)
        th = sel.get("thrust_scan_by_key")
        if tcu:
            sp = float(tcu["gelem_per_s"]) / float(th["gelem_per_s"]) if th else 0.0
            best_rows.append([f"fp16->{ot}", s, tcu["algo"], f"{float(tcu['gelem_per_s']):.1f}",
                              f"{float(tcu['pct_of_effective_bw']):.1f}", f"{sp:.2f}", tcu["pass"]])
        if any(a in sel for a in wb_cols):
            wb_rows.append([ot, s] + [f"{float(sel[a]['gelem_per_s']):.1f}" if a in sel else "" for a in wb_cols])
        if not auto or not bl:
            continue
        a_eff, b_eff = float(auto["pct_of_effective_bw"]), float(bl["pct_of_effective_bw"])
        ratio = float(auto["gelem_per_s"]) / float(bl["gelem_per_s"])
        if auto["pass"] == "PASS":
            verdict = "met" if a_eff >= goal and ratio >= GOAL_RATIO else "missed"
        elif auto["pass"] == "FAIL":
            verdict = "FAILED check"
        else:
            verdict = ("met" if a_eff >= goal and ratio >= GOAL_RATIO else "missed") + " (timing only: not verified)"
        goal_rows.append([f"fp16->{ot}", s, int(auto["n"]) // s, f"{float(auto['gelem_per_s']):.1f}", f"{a_eff:.1f}",
                          bl["algo"], cccl_of(bl["algo"]), f"{float(bl['gelem_per_s']):.1f}", f"{b_eff:.1f}",
                          f"{ratio:.3f}", f"{goal:.0f}", f"{GOAL_RATIO:.2f}", verdict])
        line.append(f"{s}: {a_eff:.0f}% {ratio:.2f}x {bl['algo']} ({cccl_of(bl['algo'])}) {verdict}")
    print(f"auto fp16->{ot} (% effective bw, x best baseline; goals >= {goal:.0f} % and >= {GOAL_RATIO:.1f}x):")
    for l in line:
        print("  " + l)
    met = sum(1 for r in goal_rows if r[0] == f"fp16->{ot}" and r[-1].startswith("met"))
    print(f"  met at {met} of {sum(1 for r in goal_rows if r[0] == f'fp16->{ot}')} sizes")
with open(os.path.join(res, "segmented_scan_goals.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["types", "segment_size", "num_segments", "auto_gelem_s", "auto_pct_of_effective_bw", "best_baseline",
                "baseline_cccl", "baseline_gelem_s", "baseline_pct_of_effective_bw", "auto_over_best_baseline",
                "goal_pct", "goal_ratio", "goals"])
    w.writerows(goal_rows)
with open(os.path.join(res, "segmented_scan_best.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["types", "segment_size", "best_tcu", "gelem_s", "pct_of_effective_bw", "x_thrust_scan_by_key", "check"])
    w.writerows(best_rows)
with open(os.path.join(res, "segmented_scan_warp_vs_block.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["out_type", "segment_size", "warp_scan256n", "warp_scan16n", "block_scan256_block", "block_matmulscan",
                "cub_warp_scan", "cub_block_scan"])
    w.writerows(wb_rows)
PY
  fi
fi
