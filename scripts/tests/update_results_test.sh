#!/usr/bin/env bash
# scripts/update_results.py with a second GPU: a run copied with --gpu h200 fills
# docs/results/h200/ and leaves the README blocks that show docs/results/h100/ as they are; a run
# copied with --gpu h100 refreshes them. Works on a copy of scripts/ in a temporary folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/repo/docs/results/h100" "$t/run"
cp -r "$root/scripts" "$t/repo/scripts"
printf 'probe,bytes,median_ms,gb_per_s\nread_stream,1024,1.0,1.0\n' > "$t/repo/docs/results/h100/bandwidth.csv"
cat > "$t/repo/README.md" <<'MD'
# fixture
<!-- results:bandwidth -->
_H100 first run; from `docs/results/h100/bandwidth.csv`._

| probe | old |
<!-- /results:bandwidth -->
MD
printf 'probe,bytes,median_ms,gb_per_s\nread_stream,2048,0.5,4.0\n' > "$t/run/bandwidth.csv"
printf 'date: 2026-01-01T00:00Z\nchapters: 05_block_grid\nname, driver_version\nNVIDIA H200, 580\nCUDA runtime 13.0\n' \
  > "$t/run/device_check.log"
before=$(cat "$t/repo/README.md")
python3 "$t/repo/scripts/update_results.py" --from "$t/run" --gpu h200 > "$t/log" 2>&1 || { cat "$t/log"; exit 1; }
[ -f "$t/repo/docs/results/h200/bandwidth.csv" ] || { echo "no docs/results/h200/bandwidth.csv"; exit 1; }
[ -f "$t/repo/docs/results/h200/README.md" ] || { echo "no docs/results/h200/README.md"; exit 1; }
if [ "$(cat "$t/repo/README.md")" != "$before" ]; then
  echo "a --gpu h200 run rewrote a block that shows docs/results/h100/:"; cat "$t/repo/README.md"; exit 1
fi
cp "$t/run/bandwidth.csv" "$t/repo/docs/results/h100/bandwidth.csv"
python3 "$t/repo/scripts/update_results.py" --from "$t/run" --gpu h100 > "$t/log" 2>&1 || { cat "$t/log"; exit 1; }
grep -q "| read_stream | 2048 |" "$t/repo/README.md" || { echo "a --gpu h100 run did not refresh its block:"; cat "$t/repo/README.md"; exit 1; }
echo "update_results: a second GPU's run fills its own folder only"
