# Chapter 03's part of scripts/device_check.sh (sourced; see that script for step, BUILD, RES).
# Writes segmented_reduce.csv (Dakkak Fig. 10), segmented_reduce_warp_block.csv (Fig. 11),
# reduce_accuracy.csv (Navarro's study), reduce_energy_instructions.csv (NVML + ncu) and
# 03_summary.txt (best TCU % of read bandwidth per size, speed-up over CUB at 16).
if [ -x "$BUILD/bin/03_tcu_reduction" ]; then
  X03="$BUILD/bin/03_tcu_reduction"
  step "03 sweep n=2^28, segments 2^4..2^24 (Fig. 10)" "$LOG" sh -c \
    "'$X03' --sweep --repeat 10 --csv '$RES/segmented_reduce.csv' > '$RES/segmented_reduce_output.txt'"
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
import csv, os, sys
res = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(res, "segmented_reduce.csv"))))
base = {"cub_segmented_reduce", "cub_warp_reduce", "cub_block_reduce", "shuffle_16b"}
sizes = sorted({int(r["segment_size"]) for r in rows})
print("seg     best TCU (pct read bw)            best baseline (pct)        TCU/CUB-seg")
for s in sizes:
    at = [r for r in rows if int(r["segment_size"]) == s]
    tcu = max((r for r in at if r["algo"] not in base), key=lambda r: float(r["gelem_per_s"]), default=None)
    bl = max((r for r in at if r["algo"] in base), key=lambda r: float(r["gelem_per_s"]), default=None)
    cub = next((r for r in at if r["algo"] == "cub_segmented_reduce"), None)
    if not tcu or not bl:
        continue
    sp = float(tcu["gelem_per_s"]) / float(cub["gelem_per_s"]) if cub else float("nan")
    print(f"2^{s.bit_length()-1:<4} {tcu['algo']:<26} {float(tcu['pct_of_read_bw']):5.1f}   "
          f"{bl['algo']:<20} {float(bl['pct_of_read_bw']):5.1f}   {sp:7.1f}x")
# The goals of the issue, per segment size 2^4 … 2^15 (README marker segmented_reduce_goals).
with open(os.path.join(res, "segmented_reduce_goals.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["segment_size", "best_tcu", "tcu_pct_of_read_bw", "best_baseline", "baseline_pct_of_read_bw",
                "tcu_over_best_baseline", "tcu_over_cub_segmented", "goal_90pct_met", "goal_beats_baselines_met"])
    for s in sizes:
        if s > 1 << 15:
            continue
        at = [r for r in rows if int(r["segment_size"]) == s]
        tcu = max((r for r in at if r["algo"] not in base), key=lambda r: float(r["gelem_per_s"]), default=None)
        bl = max((r for r in at if r["algo"] in base), key=lambda r: float(r["gelem_per_s"]), default=None)
        cub = next((r for r in at if r["algo"] == "cub_segmented_reduce"), None)
        if not tcu or not bl or not cub:
            continue
        t, b = float(tcu["gelem_per_s"]), float(bl["gelem_per_s"])
        w.writerow([s, tcu["algo"], f"{float(tcu['pct_of_read_bw']):.1f}", bl["algo"], f"{float(bl['pct_of_read_bw']):.1f}",
                    f"{t / b:.3f}", f"{t / float(cub['gelem_per_s']):.1f}",
                    "yes" if float(tcu["pct_of_read_bw"]) >= 90 else "no", "yes" if t >= b else "no"])
fails = [r for r in rows if r["pass"] not in ("true", "PASS", "1")]
print("rows:", len(rows), " failed checks:", len(fails))
PY
  }
  step "03 summary" "$LOG" summary03
fi
