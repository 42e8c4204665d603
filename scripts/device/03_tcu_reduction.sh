# Chapter 03's part of scripts/device_check.sh (sourced; see that script for step, BUILD, RES).
# Writes segmented_reduce.csv (Dakkak Fig. 10; with build-cccl-latest also the newest CCCL's
# CUB rows, renamed cub_latest_*), segmented_reduce_warp_block.csv (Fig. 11),
# reduce_accuracy.csv (Navarro's study), reduce_energy_instructions.csv (NVML + ncu),
# segmented_reduce_goals.csv (auto vs the best baseline per size, the goals) and 03_summary.txt.
if [ -x "$BUILD/bin/03_tcu_reduction" ]; then
  X03="$BUILD/bin/03_tcu_reduction"
  step "03 sweep n=2^28, segments 2^4..2^24 (Fig. 10)" "$LOG" sh -c \
    "'$X03' --sweep --repeat 10 --csv '$RES/segmented_reduce.csv' > '$RES/segmented_reduce_output.txt'"
  L03="${LATEST_BUILD:-build-cccl-latest}/bin/03_tcu_reduction"
  if [ -x "$L03" ]; then
    step "03 sweep, CUB rows built against the newest CCCL ($L03)" "$LOG" sh -c \
      "'$L03' --sweep --baselines-only cub --repeat 10 --csv '$RES/segmented_reduce_cccl_latest.csv' > '$RES/segmented_reduce_cccl_latest_output.txt'"
    step "03 merge cub_latest_* rows into segmented_reduce.csv" "$LOG" merge_cccl_latest \
      "$RES/segmented_reduce.csv" "$RES/segmented_reduce_cccl_latest.csv" "$RES/segmented_reduce_cccl_latest_output.txt"
  else
    echo "03: no $L03 (newest CCCL not fetched or not built): cub_latest_* rows skipped" | tee -a "$LOG" >&2
  fi
  step "03 warp vs block (Fig. 11)" "$LOG" sh -c \
    "'$X03' --warp-block --repeat 10 --csv '$RES/segmented_reduce_warp_block.csv' > '$RES/segmented_reduce_warp_block_output.txt'"
  step "03 odd segments from an unaligned pointer" "$LOG" sh -c \
    "'$X03' --n 1000003 --segment-size 17 --offset 3 --repeat 3 > '$RES/reduce_unaligned_output.txt'"
  step "03 --dist int --json (bit-exact, valid JSON)" "$LOG" sh -c \
    "'$X03' --n 2^22 --segment-size 1000 --dist int --json --repeat 3 | python3 -c 'import json, sys; d = json.load(sys.stdin); print(len(d[\"results\"]), \"rows\"); sys.exit(0 if d[\"all_passed\"] else 1)'"
  step "03 accuracy n=2^10..2^28 (Navarro)" "$LOG" sh -c \
    "'$X03' --accuracy --csv '$RES/reduce_accuracy.csv' > '$RES/reduce_accuracy_output.txt'"
  step "03 energy (NVML)" "$LOG" sh -c \
    "'$X03' --energy --csv '$RES/reduce_energy.csv' > '$RES/reduce_energy_output.txt'"
  # Instructions per element from ncu: one timed launch (no verification, no warm-up) of
  # n = 2^24 per (algorithm, segment size); kernels picked by name.
  ncu03() {  # ncu03 ALGO SEG
    ncu --clock-control none --metrics smsp__inst_executed.sum,dram__bytes_read.sum --csv \
      -k 'regex:reduction|chained|partials|Reduce|segment' --log-file "$RES/ncu_03_$1_$2.ncu.txt" \
      "$X03" --algo "$1" --n 2^24 --segment-size "$2" --repeat 1 --warmup 0 --no-verify >/dev/null
  }
  if command -v ncu >/dev/null; then
    for a in auto cub_segmented_reduce shuffle_16b; do
      for s in 16 256 4096; do
        step "03 ncu $a @$s" "$LOG" ncu03 "$a" "$s"
      done
    done
  fi
  merge03() {
    python3 - "$RES" <<'PY'
import csv, glob, io, os, sys
res = sys.argv[1]
inst = {}
for path in glob.glob(os.path.join(res, "ncu_03_*.ncu.txt")):
    algo, seg = os.path.basename(path)[len("ncu_03_"):-len(".ncu.txt")].rsplit("_", 1)
    text = open(path).read()
    start = text.find('"ID"')
    if start < 0:
        continue
    total = 0.0
    for r in csv.DictReader(io.StringIO(text[start:])):
        if r.get("Metric Name") == "smsp__inst_executed.sum":
            total += float(r["Metric Value"].replace(",", ""))
    inst[("tcu_auto" if algo == "auto" else algo, seg)] = total / float(1 << 24)
src = os.path.join(res, "reduce_energy.csv")
rows = list(csv.DictReader(open(src))) if os.path.exists(src) else []
with open(os.path.join(res, "reduce_energy_instructions.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["algo", "segment_size", "n", "ms", "energy_nj_per_elem", "avg_power_w", "inst_per_elem"])
    w.writeheader()
    for r in rows:
        v = inst.get((r["algo"], r["segment_size"]))
        r["inst_per_elem"] = "" if v is None else f"{v:.4f}"
        w.writerow(r)
print(len(rows), "rows,", len(inst), "ncu measurements")
PY
  }
  step "03 energy + instructions table" "$LOG" merge03
  rm -f "$RES/reduce_energy.csv"
  summary03() {
    python3 - "$RES" <<'PY' > "$RES/03_summary.txt"
# Per segment size: the auto row (the API's choice) against the best baseline of that size
# (cub_latest_* included), as % of the effective bandwidth (bytes read + written against the
# read stream of the same run), and the goals: >= 90 % and >= 0.98x the best baseline.
# Baselines are the rows named cub_*, thrust_* or shuffle_* (TCU algorithm names are never
# listed here: they come from the API's name table).
import csv, os, sys
sys.path.insert(0, os.path.join("scripts", "device"))
from baselines import Baselines
res = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(res, "segmented_reduce.csv"))))
base = Baselines(res, "segmented_reduce_output.txt", "segmented_reduce_cccl_latest_output.txt",
                 ("cub_", "thrust_", "shuffle_"))
is_baseline, cccl_of = base.is_baseline, base.cccl_of
GOAL_PCT, GOAL_RATIO = 90.0, 0.98
sizes = sorted({int(r["segment_size"]) for r in rows})
out = []
print(base.header())
print("seg        auto % eff   best baseline (CCCL)                         % eff   auto/base  goals")
for s in sizes:
    at = [r for r in rows if int(r["segment_size"]) == s]
    auto = next((r for r in at if r["algo"] == "auto"), None)
    bl = max((r for r in at if is_baseline(r["algo"])), key=lambda r: float(r["gelem_per_s"]), default=None)
    tcu = max((r for r in at if not is_baseline(r["algo"]) and r["algo"] != "auto"),
              key=lambda r: float(r["gelem_per_s"]), default=None)
    if not auto or not bl:
        continue
    a_eff, b_eff = float(auto["pct_of_effective_bw"]), float(bl["pct_of_effective_bw"])
    ratio = float(auto["gelem_per_s"]) / float(bl["gelem_per_s"])
    checked = auto["pass"] in ("true", "PASS", "1")
    verdict = ("met" if a_eff >= GOAL_PCT and ratio >= GOAL_RATIO else "missed") if checked else "FAILED check"
    out.append([s, int(auto["n"]) // s, f"{float(auto['gelem_per_s']):.1f}", f"{a_eff:.1f}", bl["algo"], cccl_of(bl["algo"]),
                f"{float(bl['gelem_per_s']):.1f}", f"{b_eff:.1f}", f"{ratio:.3f}", tcu["algo"] if tcu else "",
                f"{float(tcu['pct_of_effective_bw']):.1f}" if tcu else "", f"{GOAL_PCT:.0f}", f"{GOAL_RATIO:.2f}", verdict])
    name = f"{bl['algo']} ({cccl_of(bl['algo'])})"
    print(f"{s:<10} {a_eff:6.1f}     {name:<44} {b_eff:6.1f}   {ratio:6.3f}x  {verdict}")
with open(os.path.join(res, "segmented_reduce_goals.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["segment_size", "num_segments", "auto_gelem_s", "auto_pct_of_effective_bw", "best_baseline",
                "baseline_cccl", "baseline_gelem_s", "baseline_pct_of_effective_bw", "auto_over_best_baseline",
                "best_tcu", "best_tcu_pct_of_effective_bw", "goal_pct", "goal_ratio", "goals"])
    w.writerows(out)
met = sum(1 for r in out if r[-1] == "met")
print(f"goals (>= {GOAL_PCT:.0f} % effective bw and >= {GOAL_RATIO:.2f}x the best baseline): met at {met} of {len(out)} sizes")
fails = [r for r in rows if r["pass"] not in ("true", "PASS", "1")]
print("rows:", len(rows), " failed checks:", len(fails))
PY
  }
  step "03 summary" "$LOG" summary03
fi
