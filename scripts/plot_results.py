#!/usr/bin/env python3
"""Turn the result CSVs of a device run into PNG figures, in the papers' style.

    python3 scripts/plot_results.py docs/results/h100            # figures next to the CSVs
    python3 scripts/plot_results.py out --out /tmp/figs          # elsewhere

Known files (others are skipped with a note):
  bandwidth.csv          probe,bytes,ms,gb_per_s              -> bar chart
  *.csv with algo,segment_size,gelem_per_s                    -> throughput vs segment size,
                                                                 with the measured bandwidth line
  segmented_scan.csv     algo,out_type,segment_size,...       -> a panel per output type, copy line
Every series gets its own colour and marker (series_styles); `auto` is drawn bold black,
baselines (cub_*, thrust_*, shuffle_*, cublas_*, cpu_*) dashed and the newest CCCL's rows
(cub_latest_*) dotted; limits (the bandwidth measured in the same run) are labelled lines; legends
sit outside the axes. Columns are read by name, so extra ones (such as pct_of_effective_bw) are fine.
  gemm.csv               variant,m,n,k,tflops                 -> TFLOP/s vs size per variant
  unified_memory.csv     mode,bytes,alloc_ms,...              -> stacked phase bars per mode
Only matplotlib is needed (no pandas).
"""
import argparse
import csv
import os
import sys


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def bandwidth_of(folder):
    """{probe: GB/s} from bandwidth.csv in `folder`, or {}."""
    path = os.path.join(folder, "bandwidth.csv")
    if not os.path.exists(path):
        return {}
    return {r["probe"]: float(r["gb_per_s"]) for r in read_csv(path)}


# 12 colours that stay apart in print and for the common colour-vision deficiencies, and 11
# markers: series i gets colour i mod 12 and marker i mod 11, so up to 132 series never share a
# (colour, marker) pair, and neighbours in the legend differ in both.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#8C564B", "#7F7F7F",
           "#BCBD22", "#17BECF", "#9467BD", "#F0E442"]
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "<", ">", "h", "*"]
BASELINE_PREFIXES = ("cub_", "thrust_", "shuffle_", "cublas_", "cpu_")


def series_styles(names):
    """{name: matplotlib keyword arguments}: a distinct colour and marker per series; auto bold
    black, baselines dashed, the newest CCCL's baselines (cub_latest_*) dotted."""
    styles = {}
    for i, name in enumerate(sorted(n for n in names if n != "auto")):
        st = {"color": PALETTE[i % len(PALETTE)], "marker": MARKERS[i % len(MARKERS)], "ms": 4, "lw": 1.3}
        if name.startswith("cub_latest_"):
            st["ls"] = ":"
        elif name.startswith(BASELINE_PREFIXES):
            st["ls"] = "--"
        styles[name] = st
    if "auto" in names:
        styles["auto"] = {"color": "black", "marker": "o", "ms": 4, "lw": 2.6}
    return styles


def legend_outside(ax, title=None):
    """The legend right of the axes, never over the data."""
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, title=title,
              title_fontsize=7, frameon=False)


def limit_line(ax, y, label):
    """A labelled horizontal limit (e.g. the bandwidth measured in the same run)."""
    ax.axhline(y, ls="-.", lw=1.2, color="#444444", zorder=1)
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, max(hi, y * 1.1))  # room for the label above the line
    ax.annotate(label, xy=(0.005, y), xycoords=("axes fraction", "data"), va="bottom", fontsize=7,
                color="#444444")


def plot_bandwidth(rows, png, plt):
    fig, ax = plt.subplots(figsize=(5, 3.2))
    names = [r["probe"] for r in rows]
    values = [float(r["gb_per_s"]) for r in rows]
    bars = ax.bar(names, values, color=["#4C72B0", "#DD8452"][: len(rows)])
    for b, v in zip(bars, values):
        ax.text(b.get_x() + b.get_width() / 2, v, f"{v:.0f}", ha="center", va="bottom")
    ax.set_ylabel("GB/s (bytes read + written)")
    ax.set_title("Measured memory bandwidth (16-byte accesses)")
    ax.set_ylim(0, max(values) * 1.15)
    fig.tight_layout()
    fig.savefig(png, dpi=150)
    plt.close(fig)


def plot_segment_sweep(rows, png, plt, bandwidth, title):
    series = {}
    for r in rows:
        series.setdefault(r["algo"], []).append((int(r["segment_size"]), float(r["gelem_per_s"])))
    fig, ax = plt.subplots(figsize=(8.5, 4.6))
    styles = series_styles(series)
    for key, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label=key, **styles[key])
    # Ceiling in elements/s: a reduction reads 2 bytes per fp16 element (scans have their own plot).
    if "read_stream" in bandwidth:
        limit_line(ax, bandwidth["read_stream"] / 2, "read-stream bandwidth of the same GPU (2 bytes/element)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("segment size (elements)")
    ax.set_ylabel("G elements / s")
    ax.set_title(title)
    legend_outside(ax, "dashed: baselines")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=150, bbox_inches="tight")
    plt.close(fig)


def plot_segmented_scan(rows, png, plt, bandwidth):
    """segmented_scan.csv: one panel per output type, throughput vs segment size per algorithm,
    with the copy bandwidth of the same run in elements/s (2 bytes read + 2 or 4 written)."""
    out_types = sorted({r["out_type"] for r in rows})
    fig, axes = plt.subplots(1, len(out_types), figsize=(6.5 * len(out_types), 4.2), squeeze=False)
    for ax, out_type in zip(axes[0], out_types):
        series = {}
        for r in rows:
            if r["out_type"] == out_type:
                series.setdefault(r["algo"], []).append((int(r["segment_size"]), float(r["gelem_per_s"])))
        styles = series_styles({r["algo"] for r in rows})  # the same style in both panels
        for key, pts in sorted(series.items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=key, **styles[key])
        if "copy" in bandwidth:
            per = 2 + (4 if out_type == "fp32" else 2)
            limit_line(ax, bandwidth["copy"] / per, f"copy bandwidth of the same GPU ({per} bytes/element)")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("segment size (elements)")
        ax.set_ylabel("G elements / s")
        ax.set_title(f"segmented scan, fp16 -> {out_type}")
        ax.grid(alpha=0.3)
    legend_outside(axes[0][-1], "dashed: baselines")
    fig.tight_layout()
    fig.savefig(png, dpi=150, bbox_inches="tight")
    plt.close(fig)


def plot_gemm(rows, png, plt):
    series = {}
    for r in rows:
        series.setdefault(r["variant"], []).append((int(r["m"]), float(r["tflops"])))
    fig, ax = plt.subplots(figsize=(8.5, 4.6))
    styles = series_styles(series)
    for key, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label=key, **styles[key])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("M = N = K")
    ax.set_ylabel("TFLOP/s")
    ax.set_title("GEMM ladder")
    legend_outside(ax, "dashed: cuBLAS and CPU baselines")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=150, bbox_inches="tight")
    plt.close(fig)


def plot_phase_stacks(rows, png, plt):
    """unified_memory.csv: per size, one stacked bar per mode (alloc, fill, transfer, kernel, readback)."""
    phases = ["alloc_ms", "fill_ms", "transfer_ms", "kernel_ms", "readback_ms"]
    labels = ["alloc", "fill", "transfer", "kernel (CPU: reduce)", "readback"]
    colors = ["#8C8C8C", "#DD8452", "#4C72B0", "#55A868", "#C44E52"]
    sizes = sorted({int(r["bytes"]) for r in rows})
    ncols = min(3, len(sizes))
    nrows = (len(sizes) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.6 * nrows + 0.6), squeeze=False)
    for ax in axes.flat[len(sizes):]:
        ax.set_visible(False)
    for ax, size in zip(axes.flat, sizes):
        sel = [r for r in rows if int(r["bytes"]) == size]
        names = [r["mode"] for r in sel]
        bottom = [0.0] * len(sel)
        for phase, label, color in zip(phases, labels, colors):
            vals = [float(r[phase]) if r[phase] not in ("", "nan") else 0.0 for r in sel]
            ax.bar(names, vals, bottom=bottom, color=color, label=label)
            bottom = [b + v for b, v in zip(bottom, vals)]
        for i, r in enumerate(sel):
            if r.get("pass") == "false":
                ax.text(i, bottom[i], "FAIL", ha="center", va="bottom", color="red", fontsize=7)
        ax.set_ylim(0, max(bottom) * 1.08)
        ax.set_title(f"{size / 2**20:g} MiB" if size >= 2**20 else f"{size} B", fontsize=9)
        ax.tick_params(axis="x", labelrotation=60, labelsize=7)
        ax.set_ylabel("ms (median per phase)", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    handles, names = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="upper center", ncol=len(phases), fontsize=8, bbox_to_anchor=(0.5, 0.99))
    fig.suptitle("Whole workflow by phase: where the data lives", y=0.02, va="bottom", fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 0.94))
    fig.savefig(png, dpi=150)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="folder holding the CSVs of one GPU (e.g. docs/results/h100)")
    ap.add_argument("--out", help="where to write the PNGs (default: the same folder)")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.folder):
        print(f"plot_results: error: '{args.folder}' is not a folder", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_results: error: matplotlib is missing (pip install matplotlib)", file=sys.stderr)
        return 2
    out = args.out or args.folder
    os.makedirs(out, exist_ok=True)
    bandwidth = bandwidth_of(args.folder)
    written = 0
    for name in sorted(os.listdir(args.folder)):
        if not name.endswith(".csv"):
            continue
        path = os.path.join(args.folder, name)
        rows = read_csv(path)
        png = os.path.join(out, name[:-4] + ".png")
        if not rows:
            print(f"skip {name}: no rows")
            continue
        cols = set(rows[0])
        if name == "bandwidth.csv":
            plot_bandwidth(rows, png, plt)
        elif {"algo", "out_type", "segment_size", "gelem_per_s", "pct_of_copy_bw"} <= cols:
            plot_segmented_scan(rows, png, plt, bandwidth)
        elif {"algo", "segment_size", "gelem_per_s"} <= cols:
            plot_segment_sweep(rows, png, plt, bandwidth, name[:-4].replace("_", " "))
        elif {"variant", "m", "tflops"} <= cols:
            plot_gemm(rows, png, plt)
        elif {"mode", "bytes", "alloc_ms", "transfer_ms", "readback_ms"} <= cols:
            plot_phase_stacks(rows, png, plt)
        else:
            print(f"skip {name}: no plot for columns {sorted(cols)}")
            continue
        print(f"wrote {png}")
        written += 1
    if written == 0:
        print("plot_results: no known CSV found", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
