# Chapter 06's part of scripts/device_check.sh (sourced; see that script for step, BUILD, RES).
# The sweep 1 MiB ... 1 GiB over every mode (about a minute on an H100 machine), the
# over-subscription refusal, the executable under memcheck at a small size, and a summary.
if [ -x "$BUILD/bin/06_jetson_unified_memory" ]; then
  um_exe="$BUILD/bin/06_jetson_unified_memory"
  step "06_jetson_unified_memory --sweep (table, CSV)" "$LOG" sh -c \
    "'$um_exe' --sweep --repeat 3 --warmup 1 --csv '$RES/unified_memory.csv' > '$RES/unified_memory_output.txt'"
  step "06_jetson_unified_memory refuses more memory than there is (exit 2)" "$LOG" \
    expect_exit 2 "$um_exe" --bytes 4096G
  step "compute-sanitizer memcheck 06_jetson_unified_memory (1 MiB)" "$SAN" \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$um_exe" --bytes 1M --repeat 1 --warmup 0 --no-probe
  um_summary() {
    python3 - "$RES/unified_memory.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for size in sorted({int(r["bytes"]) for r in rows}):
    sel = [r for r in rows if int(r["bytes"]) == size]
    label = f"{size / 2**20:g} MiB"
    totals = ", ".join(f"{r['mode']} {float(r['total_ms']):.3g}" for r in sel)
    bad = [r["mode"] for r in sel if r["pass"] != "true"]
    print(f"06 total ms, {label}: {totals}" + (f"  NOT VERIFIED: {' '.join(bad)}" if bad else ""))
PY
  }
  if [ -f "$RES/unified_memory.csv" ]; then
    um_summary >"$RES/06_summary.txt" 2>&1
    grep -m1 "^memory model" "$RES/unified_memory_output.txt" >>"$RES/06_summary.txt"
    grep -m1 "SKIP" "$RES/unified_memory_output.txt" >>"$RES/06_summary.txt"
  fi
fi
