#!/usr/bin/env bash
# scripts/update_results.py with a second GPU: a run copied with --gpu h200 fills
# docs/results/h200/ and leaves the README blocks that show docs/results/h100/ as they are; a run
# copied with --gpu h100 refreshes them; a run of a third GPU into the h200 folder is refused.
# Works on a copy of scripts/ in a temporary folder.
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
# h200/ now holds an H200's results: a run of another GPU is refused there (exit 2), nothing copied
mkdir -p "$t/other"
printf 'probe,bytes,median_ms,gb_per_s\nread_stream,4096,9.9,9.9\n' > "$t/other/bandwidth.csv"
printf 'date: 2026-01-02T00:00Z\nchapters: 05_block_grid\nname, driver_version\nNVIDIA A100-SXM4-80GB, 580\n' \
  > "$t/other/device_check.log"
rc=0
python3 "$t/repo/scripts/update_results.py" --from "$t/other" --gpu h200 > "$t/log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "holds results of NVIDIA H200" "$t/log" || { echo "another GPU's run into h200/: rc $rc"; cat "$t/log"; exit 1; }
grep -q "4096" "$t/repo/docs/results/h200/bandwidth.csv" && { echo "the refused run was copied"; exit 1; }
echo "update_results: a second GPU's run fills its own folder only; another GPU's run is refused"
