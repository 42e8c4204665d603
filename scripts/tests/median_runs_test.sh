#!/usr/bin/env bash
# The device script's median_runs: three runs of one benchmark (made-up rows) become one CSV whose
# every row is, whole, the run with the median time; the rows keep the first run's order.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
eval "$(sed -n '/^median_runs() {/,/^}/p' "$root/scripts/device_check.sh")"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
h="op,algo,n,ms,gelem_per_s,pct_of_limit,pass"
printf '%s\nreduce,auto,1024,0.010,1,50,PASS\nreduce,cub,1024,0.020,1,40,PASS\nscan,auto,2048,0.5,1,90,PASS\n' "$h" > "$t/a.csv"
printf '%s\nreduce,cub,1024,0.030,2,41,PASS\nreduce,auto,1024,0.012,2,51,PASS\nscan,auto,2048,0.4,2,91,PASS\n' "$h" > "$t/b.csv"
printf '%s\nreduce,auto,1024,0.011,3,52,PASS\nscan,auto,2048,0.3,3,92,PASS\nreduce,cub,1024,0.025,3,42,PASS\n' "$h" > "$t/c.csv"
median_runs "$t/m.csv" "$t/a.csv" "$t/b.csv" "$t/c.csv"
want="$h
reduce,auto,1024,0.011,3,52,PASS
reduce,cub,1024,0.025,3,42,PASS
scan,auto,2048,0.4,2,91,PASS"
if [ "$(tr -d '\r' < "$t/m.csv")" != "$want" ]; then
  echo "median_runs wrote:"; cat "$t/m.csv"; echo "expected:"; echo "$want"; exit 1
fi
echo "median_runs: every row the median run's, whole"
