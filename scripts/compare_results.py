#!/usr/bin/env python3
"""Compare two result CSVs of the same benchmark (e.g. before and after a change), size by size.

    python3 scripts/compare_results.py BEFORE.csv AFTER.csv [--metric gelem_per_s] [--tolerance 3]
                                       [--quiet | --group-by algo]

Rows are matched on every column that is not a measurement (algo, segment_size, out_type, n,
...). Prints one line per matched row (before, after, change in %), then a summary: how many rows
changed by more than the tolerance (percent, default 3), and the rows only one side has.
Exit code: 0 when no row is slower than the tolerance allows, 1 otherwise, 2 for bad usage.
"""
import argparse
import csv
import statistics
import sys

MEASURED = {"ms", "gelem_per_s", "gb_per_s", "tflops", "max_rel_err", "pass", "pct_of_read_bw", "pct_of_effective_bw", "vs_cub",
            "pct_of_copy_bw", "pct_of_limit", "pct_of_peak", "speedup", "energy_nj_per_elem"}


def load(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"compare_results.py: cannot read {path}: {e.strerror}")
    if not rows:
        sys.exit(f"compare_results.py: {path} has no rows")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--metric", default="gelem_per_s", help="the column compared (higher is better)")
    ap.add_argument("--tolerance", type=float, default=3.0, help="percent a row may be slower (default 3)")
    ap.add_argument("--quiet", action="store_true", help="print only the summary and the rows outside the tolerance")
    ap.add_argument("--group-by", metavar="COLS",
                    help="instead of rows: a Markdown table per group of these key columns (comma-separated, "
                         "e.g. algo or op,algo): rows, median, lowest and highest change, rows beyond the tolerance")
    a = ap.parse_args()
    before, after = load(a.before), load(a.after)
    if a.metric not in before[0] or a.metric not in after[0]:
        print(f"compare_results.py: column '{a.metric}' missing", file=sys.stderr)
        return 2
    keys = [c for c in before[0] if c not in MEASURED and c in after[0]]
    group = a.group_by.split(",") if a.group_by else []
    for g in group:
        if g not in keys:
            print(f"compare_results.py: --group-by: '{g}' is not a key column ({', '.join(keys)})", file=sys.stderr)
            return 2
    groups = {}
    index = {tuple(r[k] for k in keys): r for r in before}
    changes, slower, faster, only_after = [], [], [], []
    for r in after:
        k = tuple(r[c] for c in keys)
        b = index.pop(k, None)
        if b is None:
            only_after.append(k)
            continue
        vb, va = float(b[a.metric]), float(r[a.metric])
        ch = 100.0 * (va - vb) / vb if vb > 0 else 0.0
        changes.append(ch)
        if group:
            groups.setdefault(tuple(r[g] for g in group), []).append(ch)
        label = " ".join(f"{c}={v}" for c, v in zip(keys, k))
        line = f"{label:70s} {vb:10.1f} -> {va:10.1f}  {ch:+6.1f} %"
        if ch < -a.tolerance:
            slower.append(line)
        elif ch > a.tolerance:
            faster.append(line)
        if not a.quiet and not group:
            print(line)
    if group:
        print(f"| {' / '.join(group)} | rows | median | lowest | highest | below −{a.tolerance:g} % | above +{a.tolerance:g} % |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for g, chs in sorted(groups.items()):
            print(f"| {' / '.join(g)} | {len(chs)} | {statistics.median(chs):+.1f} % | {min(chs):+.1f} % | "
                  f"{max(chs):+.1f} % | {sum(c < -a.tolerance for c in chs)} | {sum(c > a.tolerance for c in chs)} |")
        print()
    print(f"{len(changes)} rows matched on ({', '.join(keys)}); {a.metric}: median change "
          f"{statistics.median(changes) if changes else 0:+.1f} %, {len(slower)} slower and {len(faster)} faster "
          f"than ±{a.tolerance:g} %; {len(index)} rows only before, {len(only_after)} only after")
    if not group:
        for line in slower:
            print("slower: " + line)
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
