#!/usr/bin/env bash
# The device check: one call on a GPU machine does everything the CPU-only CI cannot.
#   1. the README's two commands from a fresh build folder (tests, then the tour)
#   2. compute-sanitizer memcheck, racecheck, synccheck and initcheck over every GPU test binary
#   3. the benchmarks, writing CSV/JSON under $OUT
#   4. a short summary, last
# Usage: OUT=/some/dir bash scripts/device_check.sh     (OUT defaults to ./out)
# Exit code: 0 when every step passed.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/out}"
mkdir -p "$OUT"
LOG="$OUT/device_check.log"
SAN="$OUT/sanitizer.log"
: >"$LOG"
: >"$SAN"
SUMMARY=()
FAILED=0
export PATH="/usr/local/cuda/bin:$PATH"

step() {  # step NAME LOGFILE COMMAND...: run, record PASS/FAIL with the time taken
  local name="$1" log="$2"
  shift 2
  local t0=$SECONDS
  echo "=== $name: $*" | tee -a "$log" >&2
  if "$@" >>"$log" 2>&1; then
    SUMMARY+=("PASS  $(printf '%4ss' $((SECONDS - t0)))  $name")
  else
    SUMMARY+=("FAIL  $(printf '%4ss' $((SECONDS - t0)))  $name  (see $(basename "$log"))")
    FAILED=1
  fi
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -n 2
  cmake --version | head -n 1
} >>"$LOG" 2>&1

rm -rf build
# The README's quickstart, verbatim: tests first (the gpu label included), then the tour.
step "README: cmake --workflow --preset test" "$LOG" cmake --workflow --preset test
step "README: cmake --workflow --preset tour" "$LOG" cmake --workflow --preset tour
# On a GPU machine nothing may be skipped: a skipped GPU test here means it did not run.
no_skips() { ! grep -q "(Skipped)" "$LOG"; }
step "no test skipped on the GPU machine" "$LOG" no_skips

# Sanitizers over every GPU test binary. Test cases that make a CUDA call fail on purpose
# (to test that the error surfaces) are named "[provokes API error]" and left out here.
shopt -s nullglob
for bin in build/tests/test_*_gpu; do
  for tool in memcheck racecheck synccheck initcheck; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    step "compute-sanitizer $tool $(basename "$bin")" "$SAN" \
      compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 1 "$bin" \
      --test-case-exclude='*provokes API error*' 
  done
done
# The chapter executables themselves (the child processes that break the WMMA rules on
# purpose are left out: they fault by design).
if [ -x build/bin/01_wmma_basics ]; then
  step "compute-sanitizer memcheck 01_wmma_basics" "$SAN" \
    compute-sanitizer --tool memcheck --error-exitcode 1 build/bin/01_wmma_basics --no-broken-demo
fi

# Benchmarks and results.
step "bandwidth_probe" "$LOG" build/bin/bandwidth_probe --csv "$OUT/bandwidth.csv"
if [ -x build/bin/01_wmma_basics ]; then
  step "01_wmma_basics (table, CSV, fragment maps)" "$LOG" sh -c \
    "build/bin/01_wmma_basics --csv '$OUT/wmma_basics.csv' > '$OUT/wmma_basics_output.txt'"
  step "01_wmma_basics --dist int --json (bit-exact, valid JSON)" "$LOG" sh -c \
    "build/bin/01_wmma_basics --dist int --json --no-broken-demo | python3 -c 'import json, sys; d = json.load(sys.stdin); print(len(d[\"results\"]), \"rows\"); sys.exit(0 if d[\"all_passed\"] else 1)'"
fi

# The probe against the reference figures of ../shared/BASELINES.md (H100 80GB HBM3,
# 2026-11-22): read stream 2994 GB/s, copy kernel 2783 GB/s. Only meaningful on that GPU.
check_baseline() {
  python3 - "$OUT/bandwidth.csv" <<'PY'
import csv, sys
ref = {"read_stream": 2994.0, "copy": 2783.0}
ok = True
for r in csv.DictReader(open(sys.argv[1])):
    got, want = float(r["gb_per_s"]), ref[r["probe"]]
    dev = 100.0 * (got - want) / want
    print(f"{r['probe']}: {got:.0f} GB/s vs BASELINES {want:.0f} GB/s ({dev:+.1f} %)")
    ok &= abs(dev) <= 5.0
sys.exit(0 if ok else 1)
PY
}
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q "H100 80GB HBM3"; then
  step "bandwidth within 5 % of BASELINES.md (H100)" "$LOG" check_baseline
fi

# Figures from the CSVs.
step "plot_results" "$LOG" python3 scripts/plot_results.py "$OUT"

# Bad input must give exit code 2 (and --help 0).
expect_exit() {  # expect_exit CODE COMMAND...
  local want="$1"
  shift
  "$@" >/dev/null 2>&1
  local got=$?
  echo "exit $got (want $want): $*"
  [ "$got" -eq "$want" ]
}
for exe in build/bin/*; do
  step "$(basename "$exe") --bogus exits 2" "$LOG" expect_exit 2 "$exe" --bogus
done

{
  echo
  echo "==== device check summary ===="
  grep -m1 -A1 '^name' "$LOG" | tail -n 1
  grep -m1 '^CUDA runtime' "$LOG"
  printf '%s\n' "${SUMMARY[@]}"
  [ -f "$OUT/bandwidth.csv" ] && { echo "-- bandwidth.csv"; cat "$OUT/bandwidth.csv"; }
  grep -E "vs BASELINES" "$LOG"
  grep -E "tests passed|tests failed" "$LOG" | head -n 3
  echo "overall: $([ $FAILED -eq 0 ] && echo PASS || echo FAIL)"
} | tee "$OUT/summary.txt"
exit $FAILED
