# Chapter 01's part of scripts/device_check.sh (sourced; see that script for step, BUILD, RES).
if [ -x "$BUILD/bin/01_wmma_basics" ]; then
  # The chapter itself under memcheck (the child processes that break the WMMA rules on
  # purpose are left out: they fault by design).
  step "compute-sanitizer memcheck 01_wmma_basics" "$SAN" \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$BUILD/bin/01_wmma_basics" --no-broken-demo
  step "01_wmma_basics (table, CSV, fragment maps)" "$LOG" sh -c \
    "'$BUILD/bin/01_wmma_basics' --csv '$RES/wmma_basics.csv' > '$RES/wmma_basics_output.txt'"
  step "01_wmma_basics --dist int --json (bit-exact, valid JSON)" "$LOG" sh -c \
    "'$BUILD/bin/01_wmma_basics' --dist int --json --no-broken-demo | python3 -c 'import json, sys; d = json.load(sys.stdin); print(len(d[\"results\"]), \"rows\"); sys.exit(0 if d[\"all_passed\"] else 1)'"
fi
