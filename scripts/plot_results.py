#!/usr/bin/env python3
"""Turn the result CSVs of a device run into PNG figures: one question per figure, in its title.

    python3 scripts/plot_results.py docs/results/h100            # figures next to the CSVs
    python3 scripts/plot_results.py out --out /tmp/figs          # elsewhere

Every figure answers ONE question, stated in its title. The rules every figure follows:
  - y is a percentage of the limit measured in the same run, read from the CSV's own column
    (never recomputed here): `pct_of_read_bw` (reductions: % of the read-stream probe),
    `pct_of_copy_bw` (scans: % of the copy probe, bytes read + written), `pct_of_limit` (chapter
    05: the read stream for reductions, the copy for scans); GEMM in % of cuBLAS (`pct_of_cublas`).
  - reductions and scans never share a panel;
  - at most 6 series per panel, chosen from the data: `auto` (the API's choice); the 2-3
    tensor-core variants of the chapter that are fastest at some size (greedy: each adds the most
    coverage of the best variant per size); the best CUDA-core baseline (cub_warp_*, cub_block_*,
    shuffle_*, either CCCL); the toolkit's CUB/Thrust (device-level: cub_segmented_*, cub_device_*,
    cub_scan_by_key, thrust_*); the newest CUB (device-level cub_latest_* rows) when present. For
    each baseline kind, one that is the fastest of all series somewhere is preferred (see
    choose_series). A footnote counts the series left out (they stay in the CSV);
  - powers of two are joined by lines (broken where the sweep skips a step: join_gap); other
    sizes are hollow markers of the same colour, never joined; a segment size equal to n (one
    segment, the whole array) far beyond the sweep gets its own narrow axis;
  - a row that is not a measurement (value 0 or missing, or its check failed or was skipped) is
    not drawn (the footnote counts it); rows timed without a check (pass = n/a) are drawn and said so;
  - log2 x axes labelled with powers of two; legends outside the axes, never over the data.

Known files (others are skipped with a note):
  bandwidth.csv                     probe,gb_per_s                 -> the two limits (bars)
  algo,segment_size,pct_of_read_bw                                 -> segmented reduction sweep
                                    (segmented_reduce_warp_block.csv: warp vs block level)
  algo,out_type,segment_size,pct_of_copy_bw                        -> segmented scan sweep, a panel
                                                                      per output type
  op,algo,n,segment_size,pct_of_limit, several n                   -> chapter 05's sweep (Fig. 13/14):
                                    whole arrays vs n (log y, with a strip naming the fastest at
                                    each n) | segments vs segment size; reduce | scan
  op,algo,n,segment_size,pct_of_limit, one n                       -> chapter 05 at one n: per
                                    operation, bars for auto, the fastest other tensor-core
                                    variant, the toolkit's CUB, the newest CUB and Thrust (named)
  variant,m,pct_of_cublas                                          -> GEMM ladder: % of cuBLAS per step
                                                                      at the three largest sizes
  mode,bytes,alloc_ms,transfer_ms,readback_ms                      -> unified memory: phases stacked per
                                                                      mode, a panel per size
provenance.csv (when present) names the GPU and the CCCL versions. Only matplotlib is needed.
"""
import argparse
import csv
import math
import os
import re
import sys

MAX_SERIES = 6


# ----------------------------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------------------------

def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(text):
    """A positive finite float, or None (empty, nan, 0, negative, not a number)."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(v) or v <= 0:
        return None
    return v


def check_state(row):
    """'ok' (verified), 'unchecked' (pass = n/a or no column) or 'bad' (failed or skipped)."""
    p = (row.get("pass") or "").strip().lower()
    if p in ("true", "pass", "yes", "ok"):
        return "ok"
    if p in ("", "n/a", "na", "-"):
        return "unchecked"
    return "bad"  # false, FAIL, FAIL (baseline), skipped, ...


def is_pow2(x):
    return x > 0 and (x & (x - 1)) == 0


def pow2_tex(x):
    """'2^{k}' in mathtext for powers of two, else the number with separators."""
    return f"$2^{{{x.bit_length() - 1}}}$" if is_pow2(x) else f"{x:,}"


class Run:
    """What the figures say about the run: GPU, CCCL versions, the bandwidth probes."""

    def __init__(self, folder):
        self.folder = folder
        self.bandwidth = {}
        path = os.path.join(folder, "bandwidth.csv")
        if os.path.exists(path):
            for r in read_csv(path):
                v = number(r.get("gb_per_s"))
                if v:
                    self.bandwidth[r["probe"]] = v
        self.provenance = {}
        path = os.path.join(folder, "provenance.csv")
        if os.path.exists(path):
            self.provenance = {r["file"]: r for r in read_csv(path)}

    def gpu(self, csv_name):
        """The GPU's short name: from provenance.csv (docs/results/<gpu>/), else from the
        nvidia-smi line of the run's device_check.log (a device run's folder), else unnamed."""
        row = self.provenance.get(csv_name) or next(iter(self.provenance.values()), None)
        name = row.get("gpu") if row else None
        log = os.path.join(self.folder, "device_check.log")
        if not name and os.path.exists(log):
            with open(log, errors="replace") as f:
                lines = f.read().splitlines()
            for i, line in enumerate(lines[:-1]):
                if line.startswith("name,"):
                    name = lines[i + 1].split(",")[0].strip()
                    break
        if not name:
            return "this GPU"
        words = []
        for w in name.replace("NVIDIA ", "").split():
            if re.match(r"^\d+GB$", w) or w.upper().startswith(("HBM", "PCIE", "SXM")):
                break
            words.append(w)
        return " ".join(words) or name

    def cccl(self, csv_name):
        """(toolkit CCCL version, newest CCCL version) as 'CCCL x.y.z' strings or ''."""
        row = self.provenance.get(csv_name) or {}
        m = re.search(r"CCCL \S+", row.get("versions", ""))
        return (m.group(0) if m else ""), (row.get("cccl_latest") or "").strip()


# ----------------------------------------------------------------------------------------------
# Which series to draw
# ----------------------------------------------------------------------------------------------

def category(name):
    """auto | tc (this project's tensor-core variants) | core (warp/block-level CUDA-core
    baselines) | toolkit (device-level CUB/Thrust of the toolkit) | latest (device-level CUB of the
    newest CCCL) | other (cuBLAS, CPU)."""
    if name == "auto":
        return "auto"
    base = name[len("cub_latest_"):] if name.startswith("cub_latest_") else None
    if base is not None:
        return "core" if base.startswith(("warp_", "block_")) else "latest"
    if name.startswith(("cub_warp_", "cub_block_", "shuffle_")):
        return "core"
    if name.startswith(("cub_", "thrust_")):
        return "toolkit"
    if name.startswith(("cublas_", "cpu_")):
        return "other"
    return "tc"


def greedy(pool, values, k, need_win, cand=None):
    """Up to k names of `pool` (or of `cand`, a part of it) that together come closest to the best
    of the pool at every point. values: {name: {point: value}}. need_win: only names that are the
    fastest of the pool somewhere."""
    points = sorted({p for a in pool for p in values[a]})
    if not points or k <= 0:
        return []
    best = {p: max(values[a].get(p, 0.0) for a in pool) for p in points}
    cand = list(cand if cand is not None else pool)
    if need_win:
        cand = [a for a in cand if any(values[a].get(p, 0.0) >= best[p] for p in points)]
    chosen, cover = [], {p: 0.0 for p in points}
    while len(chosen) < k and cand:
        def gain(a):
            return sum(max(cover[p], values[a].get(p, 0.0) / best[p]) - cover[p] for p in points)
        a = max(sorted(cand), key=gain)
        if chosen and gain(a) < 1e-3 * len(points):
            break
        chosen.append(a)
        cand.remove(a)
        for p in points:
            cover[p] = max(cover[p], values[a].get(p, 0.0) / best[p])
    return chosen


def choose_series(values):
    """[(name, role)] in legend order, at most MAX_SERIES. values: {name: {point: value}}.
    auto; per baseline kind (core, toolkit, latest) one series: among those that are the fastest of
    ALL series at some point if there are such, the one closest to the best of its kind everywhere;
    then up to 3 tensor-core variants that are the fastest variant somewhere (greedy coverage);
    slots left go to more CUDA-core baselines that are the fastest of their kind somewhere."""
    by_cat = {}
    for name in values:
        by_cat.setdefault(category(name), []).append(name)
    points = {p for a in values for p in values[a]}
    top = {p: max(values[a].get(p, 0.0) for a in values) for p in points}
    winners = {a for a in values if any(values[a].get(p, 0.0) >= 0.999 * top[p] for p in points)}
    out = []
    if "auto" in values:
        out.append(("auto", "auto"))
    fixed = []
    for c in ("core", "toolkit", "latest"):
        pool = by_cat.get(c, [])
        cand = [a for a in pool if a in winners] or None
        fixed.append((c, greedy(pool, values, 1, False, cand)))
    n_fixed = sum(len(names) for _, names in fixed)
    k_tc = max(0, min(3, MAX_SERIES - len(out) - n_fixed))
    out += [(a, "tc") for a in greedy(by_cat.get("tc", []), values, k_tc, True)]
    for c, names in fixed:
        out += [(a, c) for a in names]
    left = MAX_SERIES - len(out)
    if left > 0:
        core = by_cat.get("core", [])
        extra = [a for a in greedy(core, values, 1 + left, True) if (a, "core") not in out]
        out += [(a, "core") for a in extra[:left]]
    order = {"auto": 0, "tc": 1, "core": 2, "toolkit": 3, "latest": 4}
    return sorted(out, key=lambda t: order[t[1]])


# ----------------------------------------------------------------------------------------------
# Styles
# ----------------------------------------------------------------------------------------------

# Colours that stay apart in print and for the common colour-vision deficiencies.
TC_COLORS = ["#0072B2", "#009E73", "#CC79A7", "#56B4E9", "#9467BD", "#17BECF", "#BCBD22"]
TC_MARKERS = ["o", "s", "^", "D", "v", "P", "X"]
ROLE_STYLE = {
    "core": [dict(color="#E69F00", marker="D", ls="--"), dict(color="#7F7F7F", marker="X", ls="--")],
    "toolkit": [dict(color="#D55E00", marker="v", ls="--"), dict(color="#8C564B", marker="<", ls="--")],
    "latest": [dict(color="#8C564B", marker="P", ls=":"), dict(color="#7F7F7F", marker=">", ls=":")],
}


def make_styles(picked):
    """{name: plot kwargs} for [(name, role)] (names may repeat across panels)."""
    styles, used = {}, {}
    for name, role in picked:
        if name in styles:
            continue
        i = used.get(role, 0)
        used[role] = i + 1
        if role == "auto":
            styles[name] = dict(color="black", marker="o", ls="-", lw=2.6, ms=5, zorder=5)
        elif role == "tc":
            styles[name] = dict(color=TC_COLORS[i % len(TC_COLORS)], marker=TC_MARKERS[i % len(TC_MARKERS)],
                                ls="-", lw=1.6, ms=5, zorder=4)
        else:
            styles[name] = dict(ROLE_STYLE[role][min(i, len(ROLE_STYLE[role]) - 1)], lw=1.6, ms=5, zorder=3)
    return styles


def role_label(name, role, cccl=("", "")):
    toolkit, latest = cccl
    if role == "auto":
        return "auto (the API's choice)"
    if role == "tc":  # ours: on tensor cores, except the walks (one add per element on CUDA cores)
        return f"{name} (ours, CUDA cores)" if name.endswith("_walk") else f"{name} (tensor cores)"
    if role == "core":
        return f"{name} (CUDA-core baseline)"
    if role == "toolkit":
        return f"{name} (toolkit's {toolkit or 'CUB'})" if name.startswith("cub_") else f"{name} (toolkit)"
    if role == "latest":
        return f"{name} (newest CUB{', ' + latest if latest else ''})"
    return name


# ----------------------------------------------------------------------------------------------
# Drawing helpers
# ----------------------------------------------------------------------------------------------

def log2_axis(ax, xs, label=None):
    """log2 x axis with ticks at powers of two, labelled 2^k (every other one when crowded)."""
    lo, hi = min(xs), max(xs)
    k0, k1 = math.floor(math.log2(lo)), math.ceil(math.log2(hi))
    step = 1 if k1 - k0 <= 10 else 2 if k1 - k0 <= 22 else 4
    ax.set_xscale("log", base=2)
    major = [2 ** k for k in range(k0, k1 + 1) if (k - k0) % step == 0]
    ax.set_xticks(major)
    ax.set_xticklabels([f"$2^{{{k}}}$" for k in range(k0, k1 + 1) if (k - k0) % step == 0])
    ax.set_xticks([2 ** k for k in range(k0, k1 + 1)], minor=True)
    ax.set_xticklabels([], minor=True)
    ax.set_xlim(lo / 2 ** 0.4, hi * 2 ** 0.4)
    if label:
        ax.set_xlabel(label)


def pct_axis(ax, label, top=None, log=False, lo=None):
    from matplotlib.ticker import FuncFormatter
    if log:
        ax.set_yscale("log")
        ax.set_ylim(lo or 1e-3, 200)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g} %"))
    else:
        ax.set_ylim(0, max(105.0, (top or 0) * 1.06))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g} %"))
    ax.set_ylabel(label)
    ax.axhline(100, color="#444444", lw=1.0, ls="-.", zorder=1)
    ax.grid(alpha=0.3, which="major")


def join_gap(xs):
    """How far apart two powers of two may be and still be joined: twice the sweep's finest step,
    at least 4x (a sweep of every power of two breaks where it skips more than one)."""
    p2 = sorted({x for x in xs if is_pow2(x)})
    steps = [b / a for a, b in zip(p2, p2[1:])]
    return max(4, 2 * min(steps)) if steps else 4


def draw_series(ax, pts, style, label=None, gap=4):
    """pts: [(x, y)]. Powers of two joined (broken where the next one is more than `gap` times
    farther: see join_gap), other sizes hollow unconnected markers of the same colour."""
    p2 = sorted(p for p in pts if is_pow2(p[0]))
    odd = sorted(p for p in pts if not is_pow2(p[0]))
    xs, ys = [], []
    for i, (x, y) in enumerate(p2):
        if i and x > gap * p2[i - 1][0]:
            xs.append(math.sqrt(x * p2[i - 1][0]))
            ys.append(float("nan"))
        xs.append(x)
        ys.append(y)
    kw = dict(style)
    if xs:
        ax.plot(xs, ys, label=label, **kw)
        label = None
    if odd:
        ax.plot([p[0] for p in odd], [p[1] for p in odd], ls="none", marker=kw["marker"], ms=kw["ms"] + 1.5,
                mfc="white", mec=kw["color"], mew=1.4, zorder=kw["zorder"], label=label)


def legend_below(fig, handles, labels, ncol=3, note=None):
    """The legend centred under all axes (below their tick labels), and a grey note under it."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    inv = fig.transFigure.inverted()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    y0 = min(ax.get_tightbbox(renderer).transformed(inv).y0 for ax in axes)
    x0 = min(ax.get_position().x0 for ax in axes)
    x1 = max(ax.get_position().x1 for ax in axes)
    leg = fig.legend(handles, labels, loc="upper center", bbox_to_anchor=((x0 + x1) / 2, y0 - 0.01), ncol=ncol,
                     fontsize=8.5, frameon=False, columnspacing=1.6, handlelength=2.6)
    if note:
        fig.canvas.draw()
        ly = leg.get_window_extent(renderer).transformed(inv).y0
        fig.text((x0 + x1) / 2, ly - 0.005, note, fontsize=7.5, color="#555555", ha="center", va="top")
    return leg


def hollow_handle(color="#444444"):
    from matplotlib.lines import Line2D
    return Line2D([], [], ls="none", marker="o", ms=6, mfc="white", mec=color, mew=1.4)


def save(fig, png):
    fig.savefig(png, dpi=150, bbox_inches="tight", pad_inches=0.15)
    import matplotlib.pyplot as plt
    plt.close(fig)


def plural(k, word):
    return f"{k} {word}" + ("" if k == 1 else "s")


class NothingToDraw(Exception):
    """A known CSV without a single row that is a measurement."""


def footnote_text(parts):
    return "   ".join(p for p in parts if p)


# ----------------------------------------------------------------------------------------------
# Sweeps against segment size (chapters 03 and 04)
# ----------------------------------------------------------------------------------------------

SWEEP_QUESTIONS = {  # CSV stem: (question, where the figure comes from, name the level of each series)
    "segmented_reduce_warp_block": ("Warp level or block level: which reduces segments faster at each size?",
                                    "Dakkak et al. Fig. 11", True),
    "segmented_reduce": ("Segmented reduction: which algorithm is fastest at each segment size?",
                         "Dakkak et al. Fig. 10", False),
    "segmented_scan": ("Segmented scan: which algorithm is fastest at each segment size?",
                       "Dakkak et al. Fig. 12", False),
}


def collect(rows, col, key_of):
    """{algo: {point: value}} from the rows that are measurements; and the counts of rows left out
    (no value or a failed/skipped check) and of rows timed without a check."""
    values, bad, unchecked = {}, 0, 0
    for r in rows:
        v = number(r.get(col))
        state = check_state(r)
        if v is None or state == "bad":
            bad += 1
            continue
        unchecked += state == "unchecked"
        values.setdefault(r["algo"], {})[key_of(r)] = v
    return values, bad, unchecked


def plot_segment_sweep(rows, png, plt, run, csv_name, kind):
    """Chapters 03/04: % of the limit against segment size at fixed n; a panel per output type."""
    stem = csv_name[:-4]
    col = "pct_of_copy_bw" if kind == "scan" else "pct_of_read_bw"
    question, source, levels = SWEEP_QUESTIONS.get(
        stem, SWEEP_QUESTIONS["segmented_scan" if kind == "scan" else "segmented_reduce"])
    panels = sorted({r["out_type"] for r in rows}) if "out_type" in rows[0] else [""]
    values, bad, unchecked = collect(rows, col, lambda r: (r.get("out_type", ""), int(r["segment_size"])))
    n_max = max(int(r["n"]) for r in rows)
    # One segment of the whole array (segment size = n) far beyond the rest of the sweep: its own
    # narrow axis, and the series are chosen on the sweep without it.
    whole = {int(r["segment_size"]) for r in rows if int(r["segment_size"]) == int(r["n"])}
    rest = [int(r["segment_size"]) for r in rows if int(r["segment_size"]) not in whole]
    side = max(whole) if whole and rest and max(whole) > 4 * max(rest) else None
    sweep = {a: {p: v for p, v in pts.items() if p[1] != side} for a, pts in values.items()}
    sweep = {a: pts for a, pts in sweep.items() if pts}
    if not sweep:
        raise NothingToDraw
    picked = choose_series(sweep)
    styles = make_styles(picked)
    cccl = run.cccl(csv_name)
    has_side = [side is not None and any((panel, side) in values[a] for a in values) for panel in panels]
    ratios = []
    for hs_ in has_side:
        ratios += [10, 1.5, 0.7] if hs_ else [10, 0.7]
    fig = plt.figure(figsize=(7.4 * len(panels) + 1.0 * sum(has_side), 5.0))
    gs = fig.add_gridspec(1, len(ratios), width_ratios=ratios, wspace=0.04)
    top = max((v for a, _ in picked for v in sweep[a].values()), default=100)
    handles, col_i, shown_side = {}, 0, set()
    for pi, panel in enumerate(panels):
        ax = fig.add_subplot(gs[0, col_i])
        sax = fig.add_subplot(gs[0, col_i + 1], sharey=ax) if has_side[pi] else None
        col_i += 3 if has_side[pi] else 2
        xs = [x for a in sweep for (o, x) in sweep[a] if o == panel]
        for name, role in picked:
            pts = [(x, v) for (o, x), v in sweep[name].items() if o == panel]
            if pts:
                draw_series(ax, pts, styles[name], label=name, gap=join_gap(xs))
        log2_axis(ax, xs, "segment size (elements)")
        ylabel = ("% of the copy bandwidth (bytes read + written)" if kind == "scan"
                  else "% of the read-stream bandwidth")
        pct_axis(ax, ylabel + "\n100 % = the probe of the same run" if pi == 0 else "", top)
        if panel:
            ax.set_title(f"fp16 → {panel} output", fontsize=10.5)
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
        if sax is not None:
            shown_side |= draw_whole_array(sax, picked, values, panel, side, styles)
    hs, ls = [], []
    for name, role in picked:
        if name in handles:
            hs.append(handles[name])
            lab = role_label(name, role, cccl)
            if levels and role in ("tc", "core"):
                lab = lab[:-1] + (", block level)" if "block" in name else ", warp level)")
            ls.append(lab)
    if any(not is_pow2(x) for a in sweep for (_, x) in sweep[a]):
        hs.append(hollow_handle())
        ls.append("hollow: a size that is not a power of two (not joined)")
    n_txt = pow2_tex(n_max) if is_pow2(n_max) else f"{n_max:,}"
    fig.suptitle(f"{question}\n(n = {n_txt} fp16 elements, {run.gpu(csv_name)}; {source})", fontsize=12.5,
                 y=0.99)
    omitted = len(set(values) - {a for a, _ in picked} - shown_side)
    notes = []
    if omitted > 0:
        notes.append(f"Not drawn: {omitted} slower or redundant series (all in {csv_name}).")
    if bad:
        notes.append(f"{plural(bad, 'row')} not drawn: no value, or its check failed or was skipped.")
    if unchecked:
        notes.append(f"{plural(unchecked, 'row')} timed without a check (pass = n/a).")
    fig.subplots_adjust(left=0.08 if len(panels) > 1 else 0.12, right=0.97, bottom=0.1, top=0.84)
    legend_below(fig, hs, ls, ncol=2 if len(panels) == 1 else 3, note=footnote_text(notes))
    save(fig, png)


def draw_whole_array(sax, picked, values, panel, side, styles):
    """The narrow axis for one segment of the whole array (segment size = n): the drawn series at
    that size; for the toolkit's / newest CUB the fastest call of that kind there (e.g.
    cub_device_reduce), named beside its marker when it is not the series' own row."""
    pool = {}
    for a in values:
        pool.setdefault(category(a), []).append(a)
    drawn = []
    for name, role in picked:
        v = values[name].get((panel, side))
        shown = name
        if role in ("toolkit", "latest"):
            best = max(pool.get(role, []), key=lambda a: values[a].get((panel, side), 0.0))
            if values[best].get((panel, side), 0.0) > (v or 0.0):
                shown, v = best, values[best][(panel, side)]
        if v is not None:
            drawn.append((name, shown, v))
    if not drawn:
        return set()
    for k, (name, shown, v) in enumerate(drawn):
        st = styles[name]
        x = (k + 0.5) / len(drawn)
        sax.plot([x], [v], ls="none", marker=st["marker"], ms=st["ms"] + 1.5, color=st["color"], zorder=5)
        text = (shown + "  " if shown != name else "") + (f"{v:.1f} %" if v < 10 else f"{v:.0f} %")
        sax.annotate(text, (x, v), xytext=(0, -8) if v > 50 else (0, 8), textcoords="offset points",
                     rotation=90, fontsize=6.5, color=st["color"], ha="center", va="top" if v > 50 else "bottom",
                     annotation_clip=False)
    sax.set_xlim(0, 1)
    sax.set_xticks([0.5])
    sax.set_xticklabels([f"one segment\n(the whole\narray, {pow2_tex(side)})"], fontsize=7.5)
    sax.tick_params(labelleft=False, left=False)
    sax.axhline(100, color="#444444", lw=1.0, ls="-.", zorder=1)
    sax.grid(alpha=0.3, axis="y")
    sax.set_facecolor("#F5F5F5")
    return {shown for _, shown, _ in drawn}


# ----------------------------------------------------------------------------------------------
# Chapter 05: block and grid level (Dakkak et al. Fig. 13/14) and the device API at one n
# ----------------------------------------------------------------------------------------------

def fastest_strip(ax, values, picked, styles):
    """A thin strip above `ax`: at each x, the marker of the fastest drawn series there."""
    strip = ax.inset_axes([0, 1.015, 1, 0.075], sharex=ax)
    xs = sorted({x for a, _ in picked for x in values[a]})
    for x in xs:
        a = max((a for a, _ in picked if x in values[a]), key=lambda a: values[a][x])
        st = styles[a]
        strip.plot([x], [0.5], ls="none", marker=st["marker"], ms=6, color=st["color"])
    strip.set_ylim(0, 1)
    strip.set_yticks([])
    strip.tick_params(axis="x", which="both", bottom=False, labelbottom=False)
    strip.set_ylabel("fastest", rotation=0, ha="right", va="center", fontsize=8, labelpad=4)
    for side in ("top", "right", "left"):
        strip.spines[side].set_visible(False)
    return strip


def plot_block_grid_sweep(rows, png, plt, run, csv_name):
    """Fig. 13/14 as the paper draws them: whole arrays against n (one panel), segments against
    segment size at fixed n (another); reductions and scans in separate rows."""
    ops = [("reduce", "segmented_reduce", "Reduction", "Fig. 13", "% of the read-stream bandwidth"),
           ("scan", "segmented_scan", "Scan", "Fig. 14", "% of the copy bandwidth\n(bytes read + written)")]
    ops = [o for o in ops if any(r["op"] in o[:2] for r in rows)]
    # Scans: the output type the segmented rows have (fp32), in both panels.
    seg_types = {r["out_type"] for r in rows if r["op"] == "segmented_scan"}
    scan_type = "fp32" if ("fp32" in seg_types or not seg_types) else sorted(seg_types)[0]
    fig, axes = plt.subplots(len(ops), 2, figsize=(14, 4.6 * len(ops) + 0.8), squeeze=False)
    bad_all, unchecked_all, omitted, skipped_types, drawn_any = 0, 0, 0, set(), False
    cccl = run.cccl(csv_name)
    for ri, (whole_op, seg_op, name, paper_fig, ylabel) in enumerate(ops):
        panels = []
        for ci, op in enumerate((whole_op, seg_op)):
            sel = [r for r in rows if r["op"] == op and ("scan" not in op or r.get("out_type", scan_type) == scan_type)]
            skipped_types |= {r["out_type"] for r in rows if r["op"] == op and "scan" in op
                              and r.get("out_type") != scan_type}
            xcol = "n" if ci == 0 else "segment_size"
            values, bad, unchecked = collect(sel, "pct_of_limit", lambda r, c=xcol: int(r[c]))
            bad_all += bad
            unchecked_all += unchecked
            picked = choose_series(values) if values else []
            omitted += len(values) - len(picked)
            panels.append((sel, values, picked))
            drawn_any = drawn_any or bool(values)
        picked_row = []
        for _, _, picked in panels:
            picked_row += [p for p in picked if p not in picked_row]
        styles = make_styles(picked_row)
        handles = {}
        for ci, (sel, values, picked) in enumerate(panels):
            ax = axes[ri][ci]
            if not values:
                ax.set_visible(False)
                continue
            xs = [x for a in values for x in values[a]]
            for a, role in picked:
                draw_series(ax, list(values[a].items()), styles[a], label=a, gap=join_gap(xs))
            if ci == 0:
                log2_axis(ax, xs, "n (elements in the one array)")
                lo = min(v for a, _ in picked for v in values[a].values())
                pct_axis(ax, ylabel + "\n(log scale)", log=True, lo=lo / 2)
                fastest_strip(ax, values, picked, styles)
                ax.set_title(f"{name} of a whole array, n = {pow2_tex(min(xs))} … {pow2_tex(max(xs))}"
                             f" ({paper_fig})", fontsize=10.5, pad=30)
            else:
                n_seg = max(int(r["n"]) for r in sel)
                log2_axis(ax, xs, f"segment size (elements) at n = {pow2_tex(n_seg)}")
                top = max(v for a, _ in picked for v in values[a].values())
                pct_axis(ax, "", top)
                ax.set_title(f"Segmented {name.lower()}, n = {pow2_tex(n_seg)} ({paper_fig})", fontsize=10.5,
                             pad=30)
                for a, role in picked:  # a value too small to read on a linear axis: say it
                    x = max(values[a])
                    if values[a][x] < 3:
                        ax.text(0.03, 0.4, f"{a} at {pow2_tex(x)}: {values[a][x]:.1f} %\n(a measurement, not 0)",
                                transform=ax.transAxes, fontsize=8, color=styles[a]["color"], va="top")
            for h, lab in zip(*ax.get_legend_handles_labels()):
                handles.setdefault(lab, h)
        hs = [handles[a] for a, _ in picked_row if a in handles]
        ls = [role_label(a, role, cccl) for a, role in picked_row if a in handles]
        axes[ri][1].legend(hs, ls, loc="upper left", bbox_to_anchor=(1.03, 1.0), fontsize=8.5, frameon=False,
                           title=f"{name}s", title_fontsize=9.5, alignment="left")
    if not drawn_any:
        raise NothingToDraw
    fig.suptitle("Block and grid level: which algorithm is fastest at each size, for whole arrays and for segments?\n"
                 f"(Dakkak et al. Fig. 13/14; fp16 input, reductions add in fp32, scans write {scan_type}; "
                 f"{run.gpu(csv_name)}; 100 % = the probe of the same run)", fontsize=12.5)
    notes = []
    if unchecked_all:
        verified = "device_reduce_scan.csv"
        notes.append("Timed without a check (pass = n/a)" + (
            f"; the verified rows at one n are in {verified}." if csv_name != verified
            and os.path.exists(os.path.join(run.folder, verified)) else "."))
    if skipped_types:
        notes.append(f"Scans writing {'/'.join(sorted(skipped_types))}: in {csv_name}, not drawn.")
    if omitted:
        notes.append(f"{omitted} slower series not drawn (in {csv_name}).")
    if bad_all:
        notes.append(f"{plural(bad_all, 'row')} without a value or with a failed check not drawn.")
    fig.tight_layout(rect=(0, 0.03, 1, 0.97), h_pad=2.5)
    fig.text(0.01, 0.005, footnote_text(notes), fontsize=8, color="#555555", ha="left", va="bottom")
    save(fig, png)


def role_bars(ax, groups, roles, role_of, xlabel, title, label_size=9, xlabel_size=None):
    """Horizontal bars of % of the limit: a row per (label, rows) group, a bar per role (key, legend
    label, color, hatch): the role's fastest row, named unless it is auto. A baseline outside the
    chapter's error bound ("FAIL (baseline)") is still a real speed: drawn, and its label says so;
    any other failed or skipped row is not drawn. Returns how many rows were left out."""
    from matplotlib.ticker import FuncFormatter
    k = len(roles)
    bar_h = 0.84 / k
    bad = 0
    for gi, (_, g) in enumerate(groups):
        best, failed = {}, set()
        for r in g:
            v = number(r.get("pct_of_limit"))
            outside = "baseline" in (r.get("pass") or "")
            if v is None or (check_state(r) == "bad" and not outside):
                bad += 1
                failed.add(role_of(r["algo"]))
                continue
            role = role_of(r["algo"])
            if role not in best or v > best[role][1]:
                best[role] = (r["algo"] + (" (outside the error bound)" if outside else ""), v)
        for si, (role, _, color, hatch) in enumerate(roles):
            y = gi + (si - (k - 1) / 2) * bar_h
            if role not in best:
                ax.text(0.8, y, "no measurement (check failed or no value)" if role in failed else "not run",
                        va="center", fontsize=7, color="#C00000" if role in failed else "#999999")
                continue
            algo, v = best[role]
            ax.barh(y, v, height=bar_h * 0.9, color=color, hatch=hatch, edgecolor="white", lw=0)
            text = (f"{v:.0f} %" if v >= 10 else f"{v:.1f} %") + ("" if role == "auto" else f"  {algo}")
            ax.text(v + 0.8, y, text, va="center", fontsize=7)
    ax.set_yticks(range(len(groups)))
    ax.set_yticklabels([label for label, _ in groups], fontsize=label_size)
    ax.set_ylim(len(groups) - 0.5, -0.5)
    ax.set_xlim(0, 135)
    ax.set_xticks(range(0, 101, 20))
    ax.axvline(100, color="#444444", lw=1.0, ls="-.")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g} %"))
    ax.set_xlabel(xlabel, **({"fontsize": xlabel_size} if xlabel_size else {}))
    ax.set_title(title, fontsize=11)
    ax.grid(alpha=0.3, axis="x")
    for gi in range(1, len(groups)):
        ax.axhline(gi - 0.5, color="#DDDDDD", lw=0.8)
    return bad


def role_legend(fig, plt, roles, run, csv_name, note):
    """The legend of role_bars' roles below the figure, CCCL versions named, and its note."""
    toolkit, latest = run.cccl(csv_name)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c, hatch=h, ec="white") for _, _, c, h in roles]
    labels = [lab.format(f" ({toolkit})" if rk == "toolkit_cub" and toolkit else
                         f" ({latest})" if rk == "latest" and latest else "") for rk, lab, _, _ in roles]
    legend_below(fig, handles, labels, ncol=3, note=note.strip())


def device_role(algo):
    """The role of a chapter-05 row in role_bars: auto, tc (another tensor-core variant), toolkit_cub,
    latest (the newest CCCL's CUB) or thrust."""
    c = category(algo)
    if c == "toolkit":
        return "thrust" if algo.startswith("thrust_") else "toolkit_cub"
    return {"auto": "auto", "tc": "tc", "latest": "latest"}.get(c, "toolkit_cub")


def plot_device_at_n(rows, png, plt, run, csv_name):
    """Chapter 05 at one n: for each operation, % of its limit: auto, the fastest other tensor-core
    variant, the toolkit's CUB, the newest CUB and Thrust (bars, each named)."""
    n = max(int(r["n"]) for r in rows)
    groups = []  # (panel, label, rows)
    for op, panel, title in (("reduce", 0, "reduce, whole array"), ("segmented_reduce", 0, "segmented reduce"),
                             ("scan", 1, "scan, whole array"), ("segmented_scan", 1, "segmented scan")):
        sel = [r for r in rows if r["op"] == op]
        for out_type in sorted({r["out_type"] for r in sel}, reverse=True):
            for s in sorted({int(r["segment_size"]) for r in sel if r["out_type"] == out_type}):
                g = [r for r in sel if r["out_type"] == out_type and int(r["segment_size"]) == s]
                label = title + (f" → {out_type}" if panel == 1 else "")
                if op.startswith("segmented"):
                    label += f",\nsegments of {pow2_tex(s)}" + (" (one)" if s == n else "")
                groups.append((panel, label, g))
    roles = [("auto", "auto (the API's choice)", "black", None),
             ("tc", "fastest other tensor-core variant (named)", "#0072B2", None),
             ("toolkit_cub", "toolkit's CUB{}", "#D55E00", "//"),
             ("latest", "newest CUB{}", "#8C564B", ".."),
             ("thrust", "Thrust (toolkit)", "#E69F00", "\\\\")]

    present = {device_role(r["algo"]) for r in rows}
    roles = [r for r in roles if r[0] in present]
    panels = sorted({g[0] for g in groups})
    if not panels:
        raise NothingToDraw
    heights = [sum(1 for g in groups if g[0] == p) for p in panels]
    fig, axes = plt.subplots(1, len(panels), figsize=(7.0 * len(panels), 1.2 + 0.3 * len(roles) * max(heights)),
                             squeeze=False)
    bad = 0
    for ax, p in zip(axes[0], panels):
        bad += role_bars(ax, [(label, g) for q, label, g in groups if q == p], roles, device_role,
                         "% of the read-stream bandwidth" if p == 0 else "% of the copy bandwidth (bytes read + written)",
                         "Reductions" if p == 0 else "Scans")
    fig.suptitle(f"Device-wide API at n = {pow2_tex(n)}: which algorithm is fastest for each operation?\n"
                 f"(fp16 input; {run.gpu(csv_name)}; 100 % = the probe of the same run)", fontsize=12.5)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    checked = all(check_state(r) == "ok" for r in rows)
    note = ("Every row verified against an FP64 reference. " if checked else "") + \
        (f"{plural(bad, 'row')} without a value or with a failed or skipped check not drawn." if bad else "")
    role_legend(fig, plt, roles, run, csv_name, note)
    save(fig, png)


def plot_ragged(rows, png, plt, run, csv_name):
    """Chapter 05's ragged segments: per length distribution, % of the limit (every byte moved) of
    auto, the toolkit's fastest CUB and the newest CUB's fastest (bars, each named); reductions
    against the read stream, scans (fp32 outputs; a panel each for the inclusive and the exclusive
    ones that the CSV holds) against the copy."""
    n = max(int(r["n"]) for r in rows)
    dists = list(dict.fromkeys(r["distribution"] for r in rows))
    means = {r["distribution"]: number(r["mean_length"]) for r in rows}
    roles = [("auto", "auto (the API's choice)", "black", None),
             ("toolkit_cub", "toolkit's CUB{}", "#D55E00", "//"),
             ("latest", "newest CUB{}", "#8C564B", "..")]

    def role_of(algo):
        return "auto" if algo == "auto" else "latest" if category(algo) == "latest" else "toolkit_cub"
    panels = [p for p in (
        ("reduce", "Reductions (fp32 sums)", "% of the read-stream bandwidth (input, offsets and sums counted)"),
        ("scan", "Inclusive scans (fp32 outputs)", "% of the copy bandwidth (input, offsets and outputs counted)"),
        ("exclusive_scan", "Exclusive scans (fp32 outputs)",
         "% of the copy bandwidth (input, offsets and outputs counted)")) if any(r["op"] == p[0] for r in rows)]
    fig, axes = plt.subplots(1, len(panels), figsize=(max(7.0 * len(panels), 11.0), 1.4 + 0.3 * len(roles) * len(dists)),
                             squeeze=False)
    bad = 0
    for ax, (op, title, xlabel) in zip(axes[0], panels):
        groups = [(f"{d}\n(mean length {means[d]:.1f})".replace(".0)", ")"),
                   [r for r in rows if r["op"] == op and r["distribution"] == d and r["out_type"] in ("fp32", "float")])
                  for d in dists]
        bad += role_bars(ax, groups, roles, role_of, xlabel, title, label_size=8.5, xlabel_size=9)
    fig.suptitle(f"Segments of any lengths (CUB's int32 offsets), n = {pow2_tex(n)}: how close to the memory "
                 f"limit, against CUB?\n(fp16 input; {run.gpu(csv_name)}; 100 % = the probe of the same run)",
                 fontsize=12.5)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    checked = all(check_state(r) == "ok" for r in rows if "baseline" not in (r.get("pass") or ""))
    note = ("Every row checked against an FP64 reference. " if checked else "") + \
        "cub_scan_by_key: its keys (an int per element) are built outside its timing. " + \
        (f"{plural(bad, 'row')} without a value or with a failed check not drawn." if bad else "")
    role_legend(fig, plt, roles, run, csv_name, note)
    save(fig, png)


def plot_odd_sizes(rows, png, plt, run, csv_name):
    """Chapter 05's fixed-size API at odd segment sizes: per size, % of the limit of auto (the walk
    of chapters 03/04 there, the warp level), the warp level asked for by name, lessons 5 and 6's
    ragged walk (offsets s*segment_size) and the library baselines that were run; sums against the
    read stream, scans (fp32 outputs) against the copy."""
    roles = [("auto", "auto (the API's choice: the walk of chapters 03/04)", "black", None),
             ("warp", "warp level of chapters 03/04, by name", "#0072B2", None),
             ("ragged", "lessons 5/6's ragged walk, offsets s · size, by name", "#009E73", None),
             ("toolkit_cub", "toolkit's CUB{}", "#D55E00", "//"),
             ("thrust", "Thrust (toolkit)", "#E69F00", "\\\\")]

    def odd_role(algo):
        return {"warp_level": "warp", "ragged": "ragged"}.get(algo, device_role(algo))

    panels = [(op, title, xlabel) for op, title, xlabel in (
        ("segmented_reduce", "Segmented sums", "% of the read-stream bandwidth"),
        ("segmented_scan", "Segmented scans (fp32 outputs)", "% of the copy bandwidth (bytes read + written)"))
        if any(r["op"] == op for r in rows)]
    if not panels:
        raise NothingToDraw
    sizes = sorted({int(r["segment_size"]) for r in rows})
    fig, axes = plt.subplots(1, len(panels), figsize=(max(7.0 * len(panels), 11.0), 1.4 + 0.24 * len(roles) * len(sizes)),
                             squeeze=False)
    bad, used = 0, set()
    for ax, (op, title, xlabel) in zip(axes[0], panels):
        sel = [r for r in rows if r["op"] == op and r["out_type"] in ("fp32", "float")]
        present = {odd_role(r["algo"]) for r in sel}
        used |= present
        groups = [(f"segments of {s:,}", [r for r in sel if int(r["segment_size"]) == s]) for s in sizes]
        bad += role_bars(ax, groups, [r for r in roles if r[0] in present], odd_role, xlabel, title)
    n = max(int(r["n"]) for r in rows)
    fig.suptitle(f"Odd segment sizes through the fixed-size API, n ≈ {pow2_tex(1 << round(math.log2(n)))}: "
                 f"the walk of chapters 03/04 against the ragged walk\n(fp16 input; {run.gpu(csv_name)}; 100 % = the probe "
                 f"of the same run)", fontsize=12.5)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    checked = all(check_state(r) == "ok" for r in rows if "baseline" not in (r.get("pass") or ""))
    note = ("Every row checked against an FP64 reference. " if checked else "") + \
        (f"{plural(bad, 'row')} without a value or with a failed check not drawn." if bad else "")
    role_legend(fig, plt, [r for r in roles if r[0] in used], run, csv_name, note)
    save(fig, png)


# ----------------------------------------------------------------------------------------------
# Bandwidth, GEMM, unified memory
# ----------------------------------------------------------------------------------------------

def plot_bandwidth(rows, png, plt, run, csv_name):
    fig, ax = plt.subplots(figsize=(6.2, 3.6))
    names = [r["probe"] for r in rows if number(r.get("gb_per_s"))]
    values = [number(r["gb_per_s"]) for r in rows if number(r.get("gb_per_s"))]
    if not values:
        raise NothingToDraw
    meaning = {"read_stream": "read stream\n(bytes read)\n= 100 % for reductions",
               "copy": "copy\n(bytes read + written)\n= 100 % for scans"}
    bars = ax.bar([meaning.get(n, n) for n in names], values, color=["#0072B2", "#E69F00"][: len(values)], width=0.55)
    for b, v in zip(bars, values):
        ax.text(b.get_x() + b.get_width() / 2, v, f"{v:,.0f} GB/s", ha="center", va="bottom", fontsize=9)
    ax.set_ylabel("GB/s")
    ax.set_ylim(0, max(values) * 1.18)
    ax.set_title(f"What bandwidth does the {run.gpu(csv_name)} reach? (the 100 % of the figures)\n"
                 "16-byte accesses, median of the probe runs", fontsize=10.5)
    ax.grid(alpha=0.3, axis="y")
    fig.text(0.01, -0.01, "The pct_of_* columns of every sweep divide by the probes of that sweep's own run; "
             "these bars are the run that wrote bandwidth.csv.", fontsize=7, color="#555555", va="top")
    fig.tight_layout()
    save(fig, png)


def plot_gemm(rows, png, plt, run, csv_name):
    """% of cuBLAS (GemmEx at the same size) per step of the ladder, at the largest sizes."""
    order = []
    for r in rows:
        if r["variant"] not in order:
            order.append(r["variant"])
    ref = next((a for a in order if number(next((r.get("pct_of_cublas") for r in rows if r["variant"] == a
                                                  and 99.9 < (number(r.get("pct_of_cublas")) or 0) < 100.1),
                                                 None))), "cuBLAS")
    sizes = sorted({int(r["m"]) for r in rows})[-3:]
    val = {}
    for r in rows:
        v = number(r.get("pct_of_cublas"))
        if v is not None and check_state(r) != "bad" and int(r["m"]) in sizes:
            val.setdefault(r["variant"], {})[int(r["m"])] = v
    steps = [a for a in order if a in val and a != ref]
    if not steps:
        raise NothingToDraw
    missing = [a for a in order if a not in val and a != ref]
    fig, ax = plt.subplots(figsize=(8.2, max(2.8, 1.2 + 0.36 * len(steps))))
    colors = ["#BBBBBB", "#56B4E9", "#0072B2"][-len(sizes):]
    markers = ["s", "D", "o"][-len(sizes):]
    for i, a in enumerate(steps):
        xs = [val[a][s] for s in sizes if s in val[a]]
        ax.plot([min(xs), max(xs)], [i, i], color="#DDDDDD", lw=3, zorder=1, solid_capstyle="round")
    for s, c, m in zip(sizes, colors, markers):
        pts = [(val[a][s], i) for i, a in enumerate(steps) if s in val[a]]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], ls="none", marker=m, ms=7, color=c, mec="black",
                mew=0.5, label=f"M = N = K = {s}", zorder=3)
    big = sizes[-1]
    for i, a in enumerate(steps):
        if big in val[a]:
            v = val[a][big]
            ax.annotate(f"{v:.1f} %" if v < 10 else f"{v:.0f} %", (max(val[a].values()), i), xytext=(9, 0),
                        textcoords="offset points", va="center", fontsize=8, color="#0B3C6B")
    ax.set_yticks(range(len(steps)))
    ax.set_yticklabels([a + ("  (baseline)" if category(a) == "other" else "") for a in steps], fontsize=8.5)
    for t, a in zip(ax.get_yticklabels(), steps):
        if category(a) == "other":
            t.set_color("#777777")
            t.set_style("italic")
    ax.invert_yaxis()
    ax.set_xscale("log")
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter
    ax.xaxis.set_major_locator(FixedLocator([0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100]))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g} %"))
    lo = min(v for a in steps for v in val[a].values())
    ax.set_xlim(max(0.05, min(lo / 1.6, 5)), 180)
    ax.axvline(100, color="#444444", lw=1.0, ls="-.")
    ax.set_xlabel(f"% of {ref} at the same size (log scale; each step's own pct_of_cublas)")
    ax.grid(alpha=0.3, axis="x")
    ax.set_title(f"GEMM ladder: how close does each step come to cuBLAS? ({run.gpu(csv_name)})\n"
                 f"M = N = K = {', '.join(str(s) for s in sizes)}; the number: % at {big}", fontsize=11)
    fig.tight_layout()
    note = f"Not measured at these sizes: {', '.join(missing)} (smaller sizes in {csv_name})." if missing else None
    legend_below(fig, *ax.get_legend_handles_labels(), ncol=len(sizes), note=note)
    save(fig, png)


def plot_phase_stacks(rows, png, plt, run, csv_name):
    """unified_memory.csv: per size, one stacked bar per mode (alloc, fill, transfer, kernel, readback)."""
    phases = ["alloc_ms", "fill_ms", "transfer_ms", "kernel_ms", "readback_ms"]
    labels = ["alloc", "fill (host writes the data)", "transfer", "kernel (CPU modes: the reduce)", "readback"]
    colors = ["#8C8C8C", "#E69F00", "#0072B2", "#009E73", "#D55E00"]
    sizes = sorted({int(r["bytes"]) for r in rows})
    ncols = min(3, len(sizes))
    nrows = (len(sizes) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.4 * nrows + 1.2), squeeze=False)
    for ax in axes.flat[len(sizes):]:
        ax.set_visible(False)
    for ax, size in zip(axes.flat, sizes):
        sel = [r for r in rows if int(r["bytes"]) == size]
        names = [r["mode"] for r in sel]
        bottom = [0.0] * len(sel)
        for phase, label, color in zip(phases, labels, colors):
            vals = [number(r.get(phase)) or 0.0 for r in sel]  # a phase a mode has not: no segment
            ax.bar(names, vals, bottom=bottom, color=color, label=label, width=0.75)
            bottom = [b + v for b, v in zip(bottom, vals)]
        best = min(range(len(sel)), key=lambda i: bottom[i])
        for i, r in enumerate(sel):
            bad = check_state(r) == "bad"
            total = f"{bottom[i]:,.0f}" if bottom[i] >= 100 else f"{bottom[i]:.3g}"
            ax.text(i, bottom[i], "FAIL" if bad else total, ha="center", va="bottom",
                    fontsize=6.5, color="red" if bad else ("black" if i == best else "#555555"),
                    fontweight="bold" if i == best else "normal")
        ax.set_ylim(0, max(bottom) * 1.12)
        ax.set_title(f"{size / 2**20:g} MiB" if size >= 2**20 else f"{size} B", fontsize=10)
        ax.tick_params(axis="x", labelrotation=45, labelsize=7.5)
        for t in ax.get_xticklabels():
            t.set_ha("right")
            t.set_rotation_mode("anchor")
        ax.tick_params(axis="y", labelsize=8)
        ax.set_ylabel("ms (median per phase)", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    handles, names = axes.flat[0].get_legend_handles_labels()
    fig.suptitle(f"Unified memory: where does each memory mode spend the whole workflow's time, at each size? "
                 f"({run.gpu(csv_name)})\nbars stacked by phase; the number is the total in ms, bold = the "
                 "fastest mode at that size", fontsize=11)
    fig.legend(handles, names, loc="upper center", ncol=len(phases), fontsize=8.5, frameon=False,
               bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    save(fig, png)


# ----------------------------------------------------------------------------------------------

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
    run = Run(args.folder)
    written = 0
    for name in sorted(os.listdir(args.folder)):
        if not name.endswith(".csv") or name == "provenance.csv":
            continue
        path = os.path.join(args.folder, name)
        rows = read_csv(path)
        png = os.path.join(out, name[:-4] + ".png")
        if not rows:
            print(f"skip {name}: no rows")
            continue
        cols = set(rows[0])
        try:
            drawn = draw_one(name, rows, cols, png, plt, run)
        except NothingToDraw:
            print(f"skip {name}: no row to draw (no value, or every check failed)")
            plt.close("all")
            continue
        if not drawn:
            print(f"skip {name}: no plot for columns {sorted(cols)}")
            continue
        print(f"wrote {png}")
        written += 1
    if written == 0:
        print("plot_results: no known CSV found", file=sys.stderr)
    return 0


def draw_one(name, rows, cols, png, plt, run):
    """Draw the figure of one CSV; False when no figure knows its columns."""
    if name == "bandwidth.csv":
        plot_bandwidth(rows, png, plt, run, name)
    elif name == "segmented_odd_sizes.csv":
        plot_odd_sizes(rows, png, plt, run, name)
    elif {"op", "distribution", "algo", "mean_length", "pct_of_limit"} <= cols:
        plot_ragged(rows, png, plt, run, name)
    elif {"op", "algo", "n", "segment_size", "pct_of_limit"} <= cols:
        whole_ns = {int(r["n"]) for r in rows if r["op"] in ("reduce", "scan")}
        if len(whole_ns) > 2:
            plot_block_grid_sweep(rows, png, plt, run, name)
        else:
            plot_device_at_n(rows, png, plt, run, name)
    elif {"algo", "out_type", "segment_size", "n", "pct_of_copy_bw"} <= cols:
        plot_segment_sweep(rows, png, plt, run, name, "scan")
    elif {"algo", "segment_size", "n", "pct_of_read_bw"} <= cols:
        plot_segment_sweep(rows, png, plt, run, name, "reduce")
    elif {"variant", "m", "pct_of_cublas"} <= cols:
        plot_gemm(rows, png, plt, run, name)
    elif {"mode", "bytes", "alloc_ms", "transfer_ms", "readback_ms"} <= cols:
        plot_phase_stacks(rows, png, plt, run, name)
    else:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
