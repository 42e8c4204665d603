# Chapter 05's part of scripts/device_check.sh (sourced; see that script for step, BUILD, RES).
# Writes device_reduce_scan.csv (every operation at n = 2^28, verified), block_grid_sweep.csv (Dakkak
# Fig. 13/14: full arrays n = 2^10 … 2^28 and segments 2^14 … 2^28 at n = 2^28, against CUB
# and Thrust), runs n = 2^31 + 17 and writes 05_summary.txt (the goals per operation).
if [ -x "$BUILD/bin/05_block_grid" ]; then
  X05="$BUILD/bin/05_block_grid"
  step "05 every operation, n=2^28, segments 2^14, 2^16, 2^20, 2^28 (verified)" "$LOG" sh -c \
    "'$X05' --n 2^28 --segment-size 2^14,2^16,2^20,2^28 --repeat 10 --csv '$RES/device_reduce_scan.csv' > '$RES/device_reduce_scan_output.txt'"
  # The newest CCCL's CUB rows (cub_latest_*, its deterministic scan included) for the same table
  # and for the sweep below.
  L05="${LATEST_BUILD:-build-cccl-latest}/bin/05_block_grid"
  if [ -x "$L05" ]; then
    step "05 every operation, CUB rows built against the newest CCCL ($L05)" "$LOG" sh -c \
      "'$L05' --n 2^28 --segment-size 2^14,2^16,2^20,2^28 --baselines-only cub --repeat 10 --csv '$RES/device_reduce_scan_cccl_latest.csv' > '$RES/device_reduce_scan_cccl_latest_output.txt'"
    step "05 merge cub_latest_* rows into device_reduce_scan.csv" "$LOG" merge_cccl_latest \
      "$RES/device_reduce_scan.csv" "$RES/device_reduce_scan_cccl_latest.csv" "$RES/device_reduce_scan_cccl_latest_output.txt"
  else
    echo "05: no $L05 (newest CCCL not fetched or not built): cub_latest_* rows skipped" | tee -a "$LOG" >&2
  fi
  # The fixed-size API at odd segment sizes (not multiples of 8, or below the warp level's range
  # not powers of two): the API's choice (the walk of chapters 03/04 there: the warp level), next
  # to lessons 5 and 6's ragged walk with offsets s*segment_size (segmented_odd_sizes.csv).
  odd05() {
    local op a
    for op in segmented_reduce segmented_scan; do
      for a in auto ragged warp_level; do
        # warp_level needs chapters 03 and 04 in the build (a --chapter 05_block_grid build leaves them out)
        if [ $a = warp_level ] && ! { grep -q "^TCU_CHAPTER_03:BOOL=ON" "$BUILD/CMakeCache.txt" &&
                                      grep -q "^TCU_CHAPTER_04:BOOL=ON" "$BUILD/CMakeCache.txt"; } 2>/dev/null; then
          echo "05 odd sizes: no warp_level rows (chapters 03/04 not built)" | tee -a "$RES/segmented_odd_sizes_output.txt"
          continue
        fi
        "$X05" --n 2^28 --op $op --algo $a --segment-size 17,24,100,255,257,1000,12345 --repeat 10 \
          --csv "$RES/odd_${op}_$a.csv" >> "$RES/segmented_odd_sizes_output.txt" || return 1
      done
    done
    python3 - "$RES" <<'PY'
import csv, glob, os, sys
res = sys.argv[1]
files = sorted(glob.glob(os.path.join(res, "odd_segmented_*.csv")))
rows, seen = [], set()
for f in files:  # each run adds the baselines again: keep their first rows
    for r in csv.DictReader(open(f)):
        key = (r["op"], r["segment_size"], r["algo"], r["out_type"])
        if key not in seen:
            seen.add(key)
            rows.append(r)
with open(os.path.join(res, "segmented_odd_sizes.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(sorted(rows, key=lambda r: (r["op"], int(r["segment_size"]), r["algo"])))
for name in files:
    os.remove(name)
PY
  }
  step "05 fixed odd sizes 17 … 12345, n=2^28: auto and warp_level" "$LOG" odd05
  # median05 NAME RUNS ARGS...: X05 ARGS, RUNS times, and the newest CCCL's build with ARGS
  # --baselines-only cub when there is one, alternating; NAME.csv holds every row from the run with
  # the median time, whole, the newest CCCL's rows merged in (outputs: NAME_output.txt and
  # NAME_cccl_latest_output.txt).
  median05() {
    local name=$1 runs=$2 k mains=() latests=()
    shift 2
    : > "$RES/${name}_output.txt"
    [ -x "$L05" ] && : > "$RES/${name}_cccl_latest_output.txt"
    for k in $(seq "$runs"); do
      echo "== run $k of $runs" | tee -a "$RES/${name}_output.txt" >&2
      "$X05" "$@" --csv "$RES/${name}_run$k.csv" >> "$RES/${name}_output.txt" || return 1
      mains+=("$RES/${name}_run$k.csv")
      if [ -x "$L05" ]; then
        "$L05" "$@" --baselines-only cub --csv "$RES/${name}_latest_run$k.csv" \
          >> "$RES/${name}_cccl_latest_output.txt" || return 1
        latests+=("$RES/${name}_latest_run$k.csv")
      fi
    done
    median_runs "$RES/$name.csv" "${mains[@]}" || return 1
    if [ -x "$L05" ]; then
      median_runs "$RES/${name}_cccl_latest.csv" "${latests[@]}" || return 1
      merge_cccl_latest "$RES/$name.csv" "$RES/${name}_cccl_latest.csv" \
        "$RES/${name}_cccl_latest_output.txt" || return 1
    fi
    rm -f "${mains[@]}" "${latests[@]}"
  }
  # Ragged segments: the offset API over eight length distributions at n = 2^28, against CUB's
  # segmented reduce and scan-by-key, and the newest CCCL's segmented reduce and scan. A row of one
  # process (10 timed calls) moves by a few points from run to run: TCU_RAGGED_RUNS processes of
  # each binary (default 3, every run checked against FP64), every row the median run's.
  step "05 ragged segments (--ragged, vs CUB; median of ${TCU_RAGGED_RUNS:-3} runs of each binary)" "$LOG" \
    median05 ragged_segments "${TCU_RAGGED_RUNS:-3}" --ragged --repeat 10
  # The exclusive scans (ExclusiveSum) the same way, against CUB's exclusive scan-by-key and segmented
  # scan (TCU_RAGGED_EXCLUSIVE=0 leaves them out).
  if [ "${TCU_RAGGED_EXCLUSIVE:-1}" != 0 ]; then
    step "05 ragged exclusive scans (--ragged --op exclusive_scan; median of ${TCU_RAGGED_RUNS:-3} runs of each binary)" \
      "$LOG" median05 ragged_exclusive "${TCU_RAGGED_RUNS:-3}" --ragged --op exclusive_scan --repeat 10
  fi
  # The profile behind the scan's distance from the copy: the single-pass scans' launches (the
  # look-back, and the look-back with a load warp; fp32 and fp16 outputs) and CUB's DeviceScan
  # next to them (the newest CCCL's deterministic scan too), one profiled launch each: DRAM
  # throughput, occupancy and where the warps stall (ncu_05_scan.ncu.txt, ncu_05_scan_cccl_latest.ncu.txt).
  if command -v ncu >/dev/null; then
    NCU05=(ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats
           --section SchedulerStats --section MemoryWorkloadAnalysis)
    step "05 ncu scan (look-back and CUB)" "$LOG" \
      "${NCU05[@]}" -k 'regex:lookback_scan|DeviceScanKernel' --launch-count 4 --log-file "$RES/ncu_05_scan.ncu.txt" \
      "$X05" --n 2^28 --op scan --algo grid_lookback --no-verify --repeat 1 --warmup 0
    # The sum's two passes (chunk partials, then their sum, a dependent launch): how close the
    # first pass runs to the read stream and what the rest of the call costs (ncu_05_reduce.ncu.txt).
    step "05 ncu reduce (the two passes)" "$LOG" \
      "${NCU05[@]}" -k 'regex:chunk_reduce|sum_partials' --launch-count 2 --log-file "$RES/ncu_05_reduce.ncu.txt" \
      "$X05" --n 2^28 --op reduce --algo grid_two_pass --no-verify --repeat 1 --warmup 0
    step "05 ncu scan (look-back with a load warp)" "$LOG" \
      "${NCU05[@]}" -k 'regex:ws_scan' --launch-count 2 --log-file "$RES/ncu_05_scan_warp_specialised.ncu.txt" \
      "$X05" --n 2^28 --op scan --algo grid_warp_specialised --no-verify --repeat 1 --warmup 0
    # Lessons 5 and 6 at n = 2^28, one profiled walk each: the sums over segments of 100 and over
    # with_empty, the scan (fp32 results) over with_empty: DRAM throughput, occupancy and where the
    # warps stall, by instruction (ncu_05_ragged.ncu.txt).
    ragged_ncu05() {
      local spec k=0
      : > "$RES/ncu_05_ragged.ncu.txt"
      for spec in "reduce fixed_100 ragged_reduce_kernel" "reduce with_empty ragged_reduce_kernel" \
                  "scan with_empty ragged_walk"; do
        set -- $spec
        k=$((k + 1))
        "${NCU05[@]}" --section LaunchStats --section SourceCounters -k "regex:$3" --launch-count 1 \
          --log-file "$RES/ncu_ragged_$k.txt" "$X05" --ragged --op "$1" --algo auto --distribution "$2" \
          --no-verify --repeat 1 --warmup 0 || return 1
        { echo "== $1 $2 ($3)"; cat "$RES/ncu_ragged_$k.txt"; } >> "$RES/ncu_05_ragged.ncu.txt"
        rm -f "$RES/ncu_ragged_$k.txt"
      done
    }
    step "05 ncu ragged walks (lessons 5 and 6)" "$LOG" ragged_ncu05
    if [ -x "$L05" ]; then
      step "05 ncu scan (the newest CCCL's CUB, its deterministic scan included)" "$LOG" \
        "${NCU05[@]}" -k 'regex:DeviceScan' --launch-count 3 --log-file "$RES/ncu_05_scan_cccl_latest.ncu.txt" \
        "$L05" --n 2^28 --op scan --baselines-only cub --no-verify --repeat 1 --warmup 0
    fi
  fi
  # The sweep's small calls are mostly host work, which moves by microseconds between processes:
  # each binary runs TCU_SWEEP_RUNS times (default 3) and every row is the median run's, each of
  # TCU_SWEEP_REPEAT timed calls (default 100; no checks: the table above checks).
  step "05 sweep (Fig. 13/14; median of ${TCU_SWEEP_RUNS:-3} runs of each binary)" "$LOG" \
    median05 block_grid_sweep "${TCU_SWEEP_RUNS:-3}" --sweep --no-verify --repeat "${TCU_SWEEP_REPEAT:-100}"
  # TCU_BENCH_LARGE=0 leaves this step out (about 4 minutes, mostly the FP64 checks on the host;
  # ctest's "[large]" case runs the API at this size too).
  if [ "${TCU_BENCH_LARGE:-1}" != 0 ]; then
    step "05 n=2^31+17 reduce and scan (fp32 out)" "$LOG" sh -c \
      "'$X05' --n 2147483665 --op reduce --repeat 3 > '$RES/block_grid_2p31_output.txt' && \
       '$X05' --n 2147483665 --op scan --algo auto --repeat 3 > '$RES/block_grid_2p31_scan_output.txt'"
  else
    echo "05 n=2^31+17 bench step left out (TCU_BENCH_LARGE=0)" | tee -a "$LOG" >&2
  fi
  step "05 --dist int --json (bit-exact, valid JSON)" "$LOG" sh -c \
    "'$X05' --n 2^22 --segment-size 3000 --dist int --json --repeat 3 | python3 -c 'import json, sys; d = json.load(sys.stdin); print(len(d[\"results\"]), \"rows\"); sys.exit(0 if d[\"all_passed\"] else 1)'"
  summary05() {
    python3 - "$RES" <<'PY' > "$RES/05_summary.txt"
import csv, os, sys
res = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(res, "device_reduce_scan.csv"))))
def best(op, out, tcu=True):
    at = [r for r in rows if r["op"] == op and r["out_type"] == out and (r["algo"] == "auto") == tcu]
    return max(at, key=lambda r: float(r["gelem_per_s"]), default=None)
goals = [("reduce", "fp32", 97, "cub_device_reduce", 1.03),
         ("scan", "fp32", 92, "cub_latest_device_scan_deterministic", 1.08), ("scan", "fp16", 90, "cub_device_scan", 1.2), ("segmented_scan", "fp32", 88, "cub_scan_by_key", 1.6),
         ("segmented_reduce", "fp32", 95, None, None)]
print("op                           out    auto G/s  pct_of_limit (goal)   vs CUB (goal)")
for op, out, pct, cub, sp in goals:
    for seg in sorted({int(r["segment_size"]) for r in rows if r["op"] == op}):
        a = next((r for r in rows if r["op"] == op and r["out_type"] == out and r["algo"] == "auto"
                  and int(r["segment_size"]) == seg), None)
        c = next((r for r in rows if cub and r["op"] == op and r["out_type"] == out and r["algo"] == cub
                  and int(r["segment_size"]) == seg), None)
        if not a:
            continue
        vs = float(a["gelem_per_s"]) / float(c["gelem_per_s"]) if c else float("nan")
        label = op if seg == int(a["n"]) else f"{op} s={seg}"
        print(f"{label:<28} {out:<6} {float(a['gelem_per_s']):8.1f}  {float(a['pct_of_limit']):5.1f} ({pct})"
              f"          {vs:5.2f} ({sp if sp else '-'})")
fails = [r for r in rows if r["pass"].startswith("FAIL")]
print("rows:", len(rows), " failed checks:", len(fails))
PY
  }
  step "05 summary" "$LOG" summary05
fi
