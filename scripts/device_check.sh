#!/usr/bin/env bash
# The device check: what the CPU-only CI cannot do, on a GPU machine, in one or two calls.
#   build     the README's two commands from a fresh build folder (the tour, then the tests);
#             with --chapter, only those chapters (and what they need) in build-dev/
#             + with .cccl/ (scripts/fetch_cccl.sh) and chapter 03 or 04: build-cccl-latest, those
#             chapters against the newest CCCL, no tests (their cub_latest_* benchmark rows)
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck and initcheck over every GPU
#             test binary of the chosen chapters (test cases named "[provokes API error]" or
#             "[large]" are left out: the first fail on purpose, the second take too long;
#             racecheck also skips "[cublas]" cases: it flags cuBLAS's own sm_90 kernels)
#   bench     the bandwidth probe, then each chapter's benchmarks: scripts/device/<chapter>.sh,
#             sourced here, writes its CSV/JSON/text under $RES
#   grade_reference  the course grader over every exercise of this tree (the reference):
#             full marks expected; writes grade_reference.json
#   grade_handout    the same over a handout freshly written from this tree: every exercise
#             graded (none "ungraded"), 0 points expected; writes grade_handout.json
#   a short summary, last.
# Environment: TCU_BENCH_LARGE=0 leaves out 05's n = 2^31 + 17 benchmark step (ctest covers it);
#   TCU_SWEEP_RUNS=K runs 05's sweep K times per binary, each row the median run's (default 3),
#   TCU_SWEEP_REPEAT=N timed calls per point of that sweep (default 100);
#   TCU_RAGGED_RUNS=K runs 05's --ragged steps K times per binary, each row the median run's (default 3);
#   TCU_RAGGED_EXCLUSIVE=0 leaves out 05's exclusive ragged scans (ragged_exclusive.csv).
# Usage:
#   OUT=/some/dir bash scripts/device_check.sh [--chapter NN_name]... [--steps build,sanitize,bench]
# Everything a run writes goes into $OUT/results.tgz (logs, CSVs, plots) plus $OUT/summary.txt,
# so that a device call brings back two files whatever the number of chapters.
# Exit code: 0 when every step passed.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/out}"
ALL_CHAPTERS=(01_wmma_basics 02_gemm_variants 03_tcu_reduction 04_tcu_scan 05_block_grid 06_jetson_unified_memory)
CHAPTERS=()
STEPS="build,sanitize,bench"
while [ $# -gt 0 ]; do
  case "$1" in
    --chapter) CHAPTERS+=("$2"); shift 2 ;;
    --steps) STEPS="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^# Exit code/p' "$0"; exit 0 ;;
    *) echo "device_check.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for c in "${CHAPTERS[@]}"; do
  [ -d "$c" ] || { echo "device_check.sh: no chapter folder '$c'" >&2; exit 2; }
done
FULL=0
if [ ${#CHAPTERS[@]} -eq 0 ]; then
  FULL=1
  for c in "${ALL_CHAPTERS[@]}"; do [ -f "$c/CMakeLists.txt" ] && CHAPTERS+=("$c"); done
fi
has_step() { [[ ",$STEPS," == *",$1,"* ]]; }

mkdir -p "$OUT"
: >"$OUT/progress.txt"
RES="$(mktemp -d /tmp/tcu_results.XXXX)"
LOG="$RES/device_check.log"
SAN="$RES/sanitizer.log"
: >"$LOG"
: >>"$SAN"
SUMMARY=()
FAILED=0
export PATH="/usr/local/cuda/bin:$PATH"
# CLI11 and nlohmann/json: the machine's packages, else .deps/ (scripts/fetch_deps.sh, carried
# to a machine that cannot install packages), where CMakeLists.txt looks by itself.
if [ ! -f /usr/include/CLI/CLI.hpp ] || [ ! -f /usr/include/nlohmann/json.hpp ]; then
  [ -d .deps/usr ] || { echo "device_check.sh: CLI11 or nlohmann/json is missing and there is no .deps/: run scripts/fetch_deps.sh where there is network and carry .deps" >&2; exit 2; }
fi

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
  # What is done so far, where a call that runs out of time still finds it.
  echo "${SUMMARY[-1]}" >>"$OUT/progress.txt"
}
expect_exit() {  # expect_exit CODE COMMAND...
  local want="$1"
  shift
  "$@" >/dev/null 2>&1
  local got=$?
  echo "exit $got (want $want): $*"
  [ "$got" -eq "$want" ]
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "chapters: ${CHAPTERS[*]}  steps: $STEPS"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -n 2
  cmake --version | head -n 1
} >>"$LOG" 2>&1

if [ $FULL -eq 1 ]; then
  BUILD=build
  if has_step build; then
    rm -rf build
    # The README's quickstart, verbatim: tests first (the gpu label included), then the tour.
    step "README: cmake --workflow --preset tour" "$LOG" cmake --workflow --preset tour
    step "README: cmake --workflow --preset test" "$LOG" cmake --workflow --preset test
  fi
else
  BUILD=build-dev
  if has_step build; then
    opts=()
    for c in "${ALL_CHAPTERS[@]}"; do
      n="${c:0:2}"
      on=OFF
      for w in "${CHAPTERS[@]}"; do [ "$w" = "$c" ] && on=ON; done
      # chapter 06 sums with chapter 05's tcu::DeviceReduce::Sum (whose warp level is 03's and 04's)
      [[ "$n" =~ ^0[345]$ ]] && [[ " ${CHAPTERS[*]} " == *" 06_jetson_unified_memory "* ]] && on=ON
      opts+=("-DTCU_CHAPTER_$n=$on")
    done
    rm -rf "$BUILD"  # the device keeps ignored folders between calls, with mtimes that can fool ninja
    step "configure (${CHAPTERS[*]})" "$LOG" cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "${opts[@]}"
    step "build" "$LOG" cmake --build "$BUILD" -j
    step "ctest (host + gpu)" "$LOG" ctest --test-dir "$BUILD" --output-on-failure --no-tests=error -j4
  fi
fi
# The second build: chapters 03, 04 and 05 against the newest CCCL that scripts/fetch_cccl.sh put
# in .cccl/ (one CCCL per binary), no tests; the chapter scripts run its sweeps with
# --baselines-only cub and merge those rows as cub_latest_* (merge_cccl_latest below).
LATEST_BUILD=build-cccl-latest
latest_chapters=()
for c in 03_tcu_reduction 04_tcu_scan 05_block_grid; do
  [[ " ${CHAPTERS[*]} " == *" $c "* ]] && latest_chapters+=("$c")
done
if [ ${#latest_chapters[@]} -gt 0 ]; then
  if [ ! -d .cccl/include ]; then
    echo "newest CCCL not fetched (scripts/fetch_cccl.sh): cub_latest_* rows skipped" | tee -a "$LOG" >&2
  elif has_step build; then
    latest_opts=()
    for c in "${ALL_CHAPTERS[@]}"; do
      on=OFF
      [[ " ${latest_chapters[*]} " == *" $c "* ]] && on=ON
      latest_opts+=("-DTCU_CHAPTER_${c:0:2}=$on")
    done
    rm -rf "$LATEST_BUILD"
    step "configure $LATEST_BUILD (${latest_chapters[*]}, CCCL from .cccl/)" "$LOG" \
      cmake -S . -B "$LATEST_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTCU_BUILD_TESTS=OFF \
      "${latest_opts[@]}" "-DTCU_CCCL_ROOT=$PWD/.cccl"
    step "build $LATEST_BUILD" "$LOG" cmake --build "$LATEST_BUILD" -j
  fi
fi
# merge_cccl_latest MAIN.csv LATEST.csv LATEST_OUTPUT.txt: appends LATEST's rows to MAIN (columns
# by name) with every cub_* algo renamed cub_latest_*, records the CCCL version the latest
# binary printed ("baselines built against CCCL X.Y.Z") in $RES/cccl_latest_version.txt (for
# update_results.py's provenance) and removes LATEST.csv (its rows now live in MAIN).
# median_runs OUT IN...: the rows of several runs of one benchmark (separate processes) as one
# CSV: for each row (every column but the measured ones) the run with the median time, whole
# (its own limits and ratios). A small call is mostly host work, which moves between processes.
median_runs() {
  local out=$1; shift
  python3 - "$out" "$@" <<'PY'
import csv, sys
out, runs = sys.argv[1], sys.argv[2:]
measured = {"ms", "gelem_per_s", "pct_of_limit", "pct_of_copy_bw", "pct_of_effective_bw", "max_rel_err", "pass", "vs_cub"}
tables = [list(csv.DictReader(open(p, newline=""))) for p in runs]
fields = list(tables[0][0].keys())
key = lambda r: tuple(r[c] for c in fields if c not in measured)
by_key = {}
for t in tables:
    for r in t:
        by_key.setdefault(key(r), []).append(r)
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    for r in tables[0]:
        same = sorted(by_key[key(r)], key=lambda x: float(x["ms"]))
        w.writerow(same[(len(same) - 1) // 2])
print(f"{len(tables[0])} rows, the median of {len(runs)} runs each, into {out}")
PY
}
merge_cccl_latest() {
  python3 - "$1" "$2" "$3" "$RES/cccl_latest_version.txt" <<'PY'
import csv, re, sys
main, latest, output, version_file = sys.argv[1:5]
m = re.search(r"baselines built against CCCL ([0-9.]+)", open(output, errors="replace").read())
if not m:
    sys.exit(f"merge_cccl_latest: no 'baselines built against CCCL' line in {output}")
open(version_file, "w").write(m.group(1) + "\n")
with open(main, newline="") as f:
    r = csv.DictReader(f)
    fields, rows = r.fieldnames, [x for x in r if not x["algo"].startswith("cub_latest_")]
with open(latest, newline="") as f:
    new = list(csv.DictReader(f))
for x in new:
    x["algo"] = re.sub(r"^cub_", "cub_latest_", x["algo"])
with open(main, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows + [x for x in new if x["algo"].startswith("cub_latest_")])
print(f"{len(new)} cub_latest_* rows (CCCL {m.group(1)}) merged into {main}")
PY
  local rc=$?
  [ $rc -eq 0 ] && rm -f "$2"
  return $rc
}

if has_step build; then
  # On a GPU machine nothing may be skipped: a skipped GPU test here means it did not run.
  # The two-GPU tests skip, rightly, on a machine with one GPU; nothing else may skip.
  no_skips() {
    if [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -ge 2 ]; then ! grep -q "(Skipped)" "$LOG"
    else ! grep "(Skipped)" "$LOG" | grep -vq "two_gpus"; fi
  }
  step "no test skipped on the GPU machine" "$LOG" no_skips
fi

if has_step sanitize; then
  shopt -s nullglob
  bins=()
  if [ $FULL -eq 1 ]; then
    bins=("$BUILD"/tests/test_*_gpu)
  else
    # the shared layer's GPU tests (common/) first: every chapter builds on them
    bins=("$BUILD"/tests/test_common_gpu "$BUILD"/tests/test_tensor_core_gpu)
    for c in "${CHAPTERS[@]}"; do bins+=("$BUILD"/tests/test_"${c:0:2}"_*_gpu); done
  fi
  for bin in "${bins[@]}"; do
    for tool in memcheck racecheck synccheck initcheck; do
      extra=()
      exclude='*provokes API error*,*[large]*'
      [ "$tool" = memcheck ] && extra=(--leak-check full)
      # mbarriers (05's warp-specialised scan: several per block, hundreds of blocks) beyond the
      # tools' default number of tracked barriers would make their results unreliable
      [ "$tool" = racecheck ] || [ "$tool" = synccheck ] && extra=(--num-cuda-barriers 8192)
      [ "$tool" = racecheck ] && exclude="$exclude,*[cublas]*"
      step "compute-sanitizer $tool $(basename "$bin")" "$SAN" \
        timeout 600 compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 1 "$bin" \
        "--test-case-exclude=$exclude" --duration=true
    done
  done
fi

# The course grader on a GPU: the reference must score full marks, an untouched handout 0 on
# every exercise (and nothing ungraded: a GPU is here).
grade_and_expect() {  # grade_and_expect ROOT BUILD_DIR JSON full|zero
  local root="$1" build="$2" json="$3" want="$4"
  (cd "$root" && python3 scripts/grade.py all --build-dir "$build" --json "$json")
  python3 - "$json" "$want" <<'PY'
import json, sys
doc, want = json.load(open(sys.argv[1])), sys.argv[2]
bad = []
for r in doc["exercises"]:
    if r["ungraded"] or r["score"] is None:
        bad.append(f"{r['exercise']} has {r['ungraded']} ungraded item(s)")
    elif want == "full" and r["score"] != r["max"]:
        bad.append(f"{r['exercise']} {r['score']}/{r['max']}")
    elif want == "zero" and r["score"] != 0:
        bad.append(f"{r['exercise']} {r['score']}/{r['max']}")
print(f"grade ({want} marks expected): " + ", ".join(f"{r['exercise']} {r['score']}/{r['max']}" for r in doc["exercises"]))
sys.exit(f"grade: not {want} marks: {'; '.join(bad)}" if bad else 0)
PY
}
if has_step grade_reference; then
  step "grade: the reference, every exercise (full marks)" "$LOG" \
    grade_and_expect "$PWD" "$PWD/build-course" "$RES/grade_reference.json" full
fi
if has_step grade_handout; then
  HANDOUT="$(mktemp -d /tmp/tcu_handout.XXXX)/handout"
  step "handout: written and checked" "$LOG" bash -c "python3 scripts/handout.py '$HANDOUT' && python3 scripts/handout.py --check '$HANDOUT'"
  step "grade: the untouched handout, every exercise (0 marks)" "$LOG" \
    grade_and_expect "$HANDOUT" "$HANDOUT/build-course" "$RES/grade_handout.json" zero
fi

if has_step bench; then
  if [ ! -x "$BUILD/bin/bandwidth_probe" ]; then  # --steps bench on a machine without the build
    if [ $FULL -eq 1 ]; then
      step "build (for bench)" "$LOG" sh -c "cmake --preset default && cmake --build --preset default"
    else
      echo "device_check.sh: no build in $BUILD: run with --steps build first" >&2
    fi
  fi
  step "bandwidth_probe" "$LOG" "$BUILD"/bin/bandwidth_probe --csv "$RES/bandwidth.csv"
  # The probe against the repository's own results for this GPU: the docs/results/<gpu>/ folder
  # whose provenance.csv names this GPU (nvidia-smi's name, e.g. "NVIDIA H100 80GB HBM3" ->
  # docs/results/h100) for its bandwidth.csv. Each probe must be within 5 % of the figure there.
  # A GPU without results in the repository is reported ("not compared"), never a failure.
  reference_results_dir() {  # reference_results_dir GPU_NAME: prints the folder, or nothing
    python3 - "$1" docs/results/*/provenance.csv <<'PY'
import csv, os, sys
name = sys.argv[1].strip()
for prov in sorted(sys.argv[2:]):
    if not name or not os.path.isfile(prov):
        continue
    folder = os.path.dirname(prov)
    with open(prov, newline="") as f:
        for r in csv.DictReader(f):
            if r.get("file") == "bandwidth.csv" and (r.get("gpu") or "").strip() == name \
                    and os.path.isfile(os.path.join(folder, "bandwidth.csv")):
                print(folder)
                sys.exit(0)
PY
  }
  check_bandwidth_reference() {  # check_bandwidth_reference MEASURED.csv REFERENCE.csv
    python3 - "$1" "$2" <<'PY'
import csv, sys
measured, reference = sys.argv[1], sys.argv[2]
ref = {r["probe"]: float(r["gb_per_s"]) for r in csv.DictReader(open(reference, newline=""))}
ok = True
for r in csv.DictReader(open(measured, newline="")):
    got = float(r["gb_per_s"])
    if r["probe"] not in ref:
        print(f"bandwidth reference: {r['probe']}: {got:.0f} GB/s, no figure in {reference}: not compared")
        continue
    want = ref[r["probe"]]
    dev = 100.0 * (got - want) / want
    print(f"bandwidth reference: {r['probe']}: {got:.0f} GB/s vs {want:.0f} GB/s in {reference} ({dev:+.1f} %)")
    ok &= abs(dev) <= 5.0
sys.exit(0 if ok else 1)
PY
  }
  GPU_NAME="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
  REF_DIR="$(reference_results_dir "$GPU_NAME")"
  if [ -n "$REF_DIR" ] && [ -f "$RES/bandwidth.csv" ]; then
    step "bandwidth within 5 % of $REF_DIR/bandwidth.csv" "$LOG" \
      check_bandwidth_reference "$RES/bandwidth.csv" "$REF_DIR/bandwidth.csv"
  elif [ -z "$REF_DIR" ]; then
    echo "bandwidth reference: no reference results for GPU '${GPU_NAME:-unknown}': not compared" | tee -a "$LOG" >&2
  fi
  # Each chapter's benchmarks (they may use step, expect_exit, BUILD, RES, LOG, SAN, and
  # LATEST_BUILD with merge_cccl_latest for the newest CCCL's rows).
  for c in "${CHAPTERS[@]}"; do
    if [ -f "scripts/device/$c.sh" ]; then
      # shellcheck source=/dev/null
      source "scripts/device/$c.sh"
    fi
  done
  step "plot_results" "$LOG" python3 scripts/plot_results.py "$RES"
  # Bad input must give exit code 2.
  for exe in "$BUILD"/bin/*; do
    step "$(basename "$exe") --bogus exits 2" "$LOG" expect_exit 2 "$exe" --bogus
  done
fi

{
  echo
  echo "==== device check summary ===="
  grep -m1 -A1 '^name' "$LOG" | tail -n 1
  grep -m1 '^chapters:' "$LOG"
  printf '%s\n' "${SUMMARY[@]}"
  [ -f "$RES/bandwidth.csv" ] && { echo "-- bandwidth.csv"; cat "$RES/bandwidth.csv"; }
  grep -E "^bandwidth reference:" "$LOG"
  grep -E "tests passed|tests failed" "$LOG" | head -n 3
  for f in "$RES"/*_summary.txt; do [ -f "$f" ] && { echo "-- $(basename "$f")"; cat "$f"; }; done
  echo "overall: $([ $FAILED -eq 0 ] && echo PASS || echo FAIL)"
} >"$RES/summary.txt" 2>/dev/null
cp "$RES/summary.txt" "$OUT/summary.txt"
tar czf "$OUT/results.tgz" -C "$RES" .
cat "$OUT/summary.txt"
exit $FAILED
