#!/usr/bin/env bash
# Same-run A/B of chapter sweeps: is a change faster, slower, or within the noise?
#
# Builds two source trees on this machine — BASE (e.g. `git archive <rev> | tar -x -C DIR`)
# and this checkout — then runs each chosen chapter's sweep with the base binary and the new
# binary back to back, and compares the two CSVs size by size (scripts/compare_results.py on
# gelem_per_s, tolerance 3 %). Two sweeps of one run share the GPU's clocks and temperature,
# which sweeps of different days do not.
#
# Usage:
#   OUT=/some/dir bash scripts/ab_sweeps.sh --base DIR [--chapter NN_name]... [--repeat N]
# Chapters with a sweep: 03_tcu_reduction, 04_tcu_scan, 05_block_grid (default: all three).
# Writes $OUT/ab/<chapter>_{base,new}.csv, <chapter>_compare.txt and ab_summary.txt.
# Exit code: 0 when every build and sweep ran (slower rows are reported, not failed), 2 for
# bad usage, 1 when a build or a sweep failed.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/out}"
BASE=""
CHAPTERS=()
REPEAT=10
while [ $# -gt 0 ]; do
  case "$1" in
    --base) BASE="${2:-}"; shift 2 ;;
    --chapter) CHAPTERS+=("${2:-}"); shift 2 ;;
    --repeat) REPEAT="${2:-}"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "ab_sweeps.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$BASE" ] && [ -f "$BASE/CMakeLists.txt" ] || { echo "ab_sweeps.sh: --base DIR must be a source tree (no CMakeLists.txt in '$BASE')" >&2; exit 2; }
[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || { echo "ab_sweeps.sh: --repeat expects a positive count, not '$REPEAT'" >&2; exit 2; }
[ ${#CHAPTERS[@]} -eq 0 ] && CHAPTERS=(03_tcu_reduction 04_tcu_scan 05_block_grid)
declare -A SWEEP=(
  [03_tcu_reduction]="--sweep --no-verify --repeat $REPEAT"
  [04_tcu_scan]="--sweep --no-verify --repeat $REPEAT"
  [05_block_grid]="--sweep --no-verify --repeat $REPEAT")
for c in "${CHAPTERS[@]}"; do
  [ -n "${SWEEP[$c]:-}" ] || { echo "ab_sweeps.sh: no sweep for chapter '$c' (03_tcu_reduction, 04_tcu_scan, 05_block_grid)" >&2; exit 2; }
done
export PATH="/usr/local/cuda/bin:$PATH"
mkdir -p "$OUT/ab"
SUMMARY="$OUT/ab/ab_summary.txt"
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY" >&2; }
FAILED=0

# Chapters 03, 04 and 05 (05's warp level is 03's and 04's), Release, no tests, for sm_90
# (Hopper; AB_CUDA_ARCHITECTURES=... for another GPU).
configure() {  # configure SRC BUILD
  rm -rf "$2"
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTCU_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES="${AB_CUDA_ARCHITECTURES:-90}" \
    -DTCU_CHAPTER_01=OFF -DTCU_CHAPTER_02=OFF -DTCU_CHAPTER_03=ON -DTCU_CHAPTER_04=ON -DTCU_CHAPTER_05=ON \
    -DTCU_CHAPTER_06=OFF >"$OUT/ab/configure_$(basename "$2").log" 2>&1
}
t0=$SECONDS
for side in base new; do
  src=$([ $side = base ] && echo "$BASE" || echo "$PWD")
  configure "$src" "build-ab-$side" || { say "configure $side failed (ab/configure_build-ab-$side.log)"; FAILED=1; }
done
[ $FAILED = 0 ] || exit 1
targets=()
for c in "${CHAPTERS[@]}"; do targets+=("$c"); done
( cmake --build build-ab-base -j 8 --target "${targets[@]}" >"$OUT/ab/build_base.log" 2>&1 ) &
pb=$!
( cmake --build build-ab-new -j 8 --target "${targets[@]}" >"$OUT/ab/build_new.log" 2>&1 ) &
pn=$!
wait $pb || { say "build base failed (ab/build_base.log)"; FAILED=1; }
wait $pn || { say "build new failed (ab/build_new.log)"; FAILED=1; }
[ $FAILED = 0 ] || exit 1
say "built both trees in $((SECONDS - t0)) s: base $BASE, new $PWD ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"

for c in "${CHAPTERS[@]}"; do
  for side in base new; do
    t1=$SECONDS
    # shellcheck disable=SC2086
    if "build-ab-$side/bin/$c" ${SWEEP[$c]} --csv "$OUT/ab/${c}_$side.csv" >"$OUT/ab/${c}_$side.txt" 2>&1; then
      say "$c $side sweep: $((SECONDS - t1)) s"
    else
      say "$c $side sweep FAILED (ab/${c}_$side.txt)"
      FAILED=1
    fi
  done
  if [ -f "$OUT/ab/${c}_base.csv" ] && [ -f "$OUT/ab/${c}_new.csv" ]; then
    python3 scripts/compare_results.py "$OUT/ab/${c}_base.csv" "$OUT/ab/${c}_new.csv" >"$OUT/ab/${c}_compare.txt" 2>&1
    say "$c: $(tail -n 3 "$OUT/ab/${c}_compare.txt" | tr '\n' ' ')"
  fi
done
exit $FAILED
