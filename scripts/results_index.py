"""The index of docs/results/<gpu>/: per question, one figure and a short table drawn from the
committed CSVs (scripts/update_results.py writes it as that folder's README.md). The CSVs stay
whole beside it; the index links each one.

A short table is one of:
  whole      the CSV itself (only for CSVs of a few rows)
  best       per size (powers of two; a group per `group` column value): the API's choice
             (`auto`), the fastest of our variants, the fastest library baseline of the
             toolkit's CCCL and of the newest CCCL (rows cub_latest_*), each with its % column
  worst      per variant, the largest value of a column (an error) and where it occurs
  count      rows per value of one column, by result
  last       the rows of the largest value of one column
  by_distribution  per operation and length distribution (ragged segments): auto, the fastest
             library baseline and the newest CUB (% of the limit), auto's speed over the newest CUB's
"""
import csv
import json
import os
import re

# (question, csv, table kind, options); the figure is <csv name>*.png when it exists.
QUESTIONS = [
    ("How fast does this GPU read and copy memory? Every % in these results is of these two, "
     "measured in the same run as the rows that quote them.", "bandwidth.csv", "whole", {}),
    ("01: Do the WMMA rules, shapes and layouts of the lesson hold on this GPU?", "wmma_basics.csv", "count",
     {"key": "section", "by": "result"}),
    ("02: How close does each GEMM step come to cuBLAS at 4096³?", "gemm_4096.csv", "whole", {}),
    ("03: Which reduction is fastest at each segment size (n = 2^28), against CUB?", "segmented_reduce.csv", "best",
     {"x": "segment_size", "y": "pct_of_read_bw"}),
    ("03: Warp level or block level: which is faster at each segment size?", "segmented_reduce_warp_block.csv",
     "best", {"x": "segment_size", "y": "pct_of_read_bw"}),
    ("03: How accurate is each reduction as n grows (relative error against FP64)?", "reduce_accuracy.csv", "worst",
     {"key": "algo", "y": "rel_err", "at": "n"}),
    ("03: What does an element cost in energy and instructions, against CUB?", "reduce_energy_instructions.csv",
     "whole", {}),
    ("04: Which scan is fastest at each segment size (n = 2^28), against CUB?",
     "segmented_scan.csv", "best", {"x": "segment_size", "y": "pct_of_copy_bw", "where": {"out_type": "fp32"},
                                    "note": "the table: fp32 outputs"}),
    ("05: Device-wide API at n = 2^28: which algorithm is fastest for each operation, against CUB?",
     "device_reduce_scan.csv", "best", {"x": "n", "y": "pct_of_limit", "group": ["op", "out_type"],
                                        "where_same": ("n", "segment_size"),
                                        "note": "the table: whole arrays and one segment"}),
    ("05: Block or grid level (Dakkak Fig. 13/14): which is fastest at each size, for whole arrays and "
     "for segments?", "block_grid_sweep.csv", "best",
     {"x": "n", "y": "pct_of_limit", "group": ["op"], "min_x": 1 << 16, "where_same": ("n", "segment_size"),
      "note": "the table: whole arrays"}),
    ("05: Segments of any lengths (CUB's offsets, n = 2^28): how close to the memory limit, against CUB?",
     "ragged_segments.csv", "by_distribution", {"y": "pct_of_limit", "where": {"out_type": "fp32"},
                                                "note": "% of the limit measured in the same run, every byte counted; the table: fp32 "
                                                        "outputs; cub_scan_by_key's keys are built outside its timing"}),
    ("05: Exclusive scans of segments of any lengths (`--ragged --op exclusive_scan`): as close to the limit as "
     "the inclusive ones?", "ragged_exclusive.csv", "by_distribution",
     {"y": "pct_of_limit", "where": {"out_type": "fp32"},
      "note": "% of the copy measured in the same run, every byte counted; the table: fp32 outputs; "
              "cub_scan_by_key's keys are built outside its timing"}),
    ("06: Where does each memory mode spend one workflow's time, at each size?",
     "unified_memory.csv", "last", {"key": "bytes", "note": "the table: the largest size"}),
]

BASELINE = re.compile(r"^(cub_|thrust_|shuffle_)")


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def fmt(v):
    x = number(v)
    if x is None:
        return str(v).replace("|", "\\|").replace("*", "\\*")
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.4g}"


def size(v):
    x = int(float(v))
    return f"2^{x.bit_length() - 1}" if x >= 1024 and x & (x - 1) == 0 else str(x)


def table(head, rows, right):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def passed(row):
    v = str(row.get("pass", row.get("result", "true"))).strip().lower()
    return v not in ("false", "fail", "skipped")


def whole(rows, _):
    head = list(rows[0].keys()) if rows else []
    return table(head, [[fmt(r[h]) for h in head] for r in rows], [number(rows[0][h]) is not None for h in head])


def count(rows, o):
    keys = list(dict.fromkeys(r[o["key"]] for r in rows))
    values = sorted({r[o["by"]] for r in rows})
    body = [[k] + [str(sum(1 for r in rows if r[o["key"]] == k and r[o["by"]] == v)) for v in values] for k in keys]
    return table([o["key"]] + values, body, [False] + [True] * len(values))


def worst(rows, o):
    body = []
    for k in dict.fromkeys(r[o["key"]] for r in rows):
        mine = [r for r in rows if r[o["key"]] == k and number(r[o["y"]]) is not None]
        if mine:
            w = max(mine, key=lambda r: abs(number(r[o["y"]])))
            body.append([k, f"{abs(number(w[o['y']])):.3g}", size(w[o["at"]])])
    return table([o["key"], f"largest {o['y']}", f"at {o['at']}"], body, [False, True, True])


def last(rows, o):
    top = max(number(r[o["key"]]) for r in rows)
    mine = [r for r in rows if number(r[o["key"]]) == top]
    head = list(rows[0].keys())
    return table(head, [[fmt(r[h]) for h in head] for r in mine], [number(mine[0][h]) is not None for h in head])


def best(rows, o):
    x, y, group = o["x"], o["y"], o.get("group", [])
    rows = [r for r in rows if passed(r) and number(r.get(y)) is not None and number(r[y]) > 0
            and all(r.get(k) == v for k, v in o.get("where", {}).items())
            and (not o.get("where_same") or r[o["where_same"][0]] == r[o["where_same"][1]])]
    keys = sorted({tuple(r[g] for g in group) + (int(float(r[x])),) for r in rows
                   if int(float(r[x])) & (int(float(r[x])) - 1) == 0 and int(float(r[x])) >= o.get("min_x", 0)})
    head = group + [x, "auto", "best of ours", "best library baseline", "newest CUB"]
    body = []
    for key in keys:
        mine = [r for r in rows if tuple(r[g] for g in group) + (int(float(r[x])),) == key]

        def top(pred):
            c = [r for r in mine if pred(r["algo"])]
            if not c:
                return "–"
            b = max(c, key=lambda r: number(r[y]))
            return f"{b['algo']} {number(b[y]):.1f}"
        auto = [r for r in mine if r["algo"] == "auto"]
        body.append(list(key[:-1]) + [size(key[-1]), f"{number(auto[0][y]):.1f}" if auto else "–",
                                      top(lambda a: a != "auto" and not BASELINE.match(a)),
                                      top(lambda a: BASELINE.match(a) and not a.startswith("cub_latest_")),
                                      top(lambda a: a.startswith("cub_latest_"))])
    return table(head, body, [False] * len(group) + [True, True, False, False, False])


def by_distribution(rows, o):
    """Per operation and length distribution: auto, the best library baseline and the newest CUB
    (% of the limit), and auto's speed over the newest CUB's."""
    y = o["y"]
    rows = [r for r in rows if all(r.get(k) == v for k, v in o.get("where", {}).items())]
    body = []
    for op, dist in dict.fromkeys((r["op"], r["distribution"]) for r in rows):
        mine = [r for r in rows if r["op"] == op and r["distribution"] == dist and number(r.get(y)) is not None]

        def top(pred):
            c = [r for r in mine if pred(r["algo"]) and number(r["gelem_per_s"])]
            return max(c, key=lambda r: number(r["gelem_per_s"])) if c else None
        auto = top(lambda a: a == "auto")
        lib = top(lambda a: BASELINE.match(a) and not a.startswith("cub_latest_"))
        new = top(lambda a: a.startswith("cub_latest_"))

        def cell(r):
            if r is None:
                return "–"
            state = str(r.get("pass", "")).lower()
            mark = " (outside the error bound)" if "baseline" in state else "" if passed(r) else " (fails its check)"
            return (f"{r['algo']} " if r is not auto else "") + f"{number(r[y]):.1f}{mark}"
        ratio = f"{number(auto['gelem_per_s']) / number(new['gelem_per_s']):.2f}×" if auto and new else "–"
        body.append([op, dist, f"{number(mine[0]['mean_length']):.1f}" if mine else "–", cell(auto), cell(lib),
                     cell(new), ratio])
    return table(["op", "distribution", "mean length", "auto", "best library baseline", "newest CUB",
                  "auto ÷ newest CUB"], body, [False, False, True, True, False, False, True])


def grades(folder):
    """The course grader on this GPU: the reference's marks and an untouched handout's."""
    paths = [os.path.join(folder, f"grade_{w}.json") for w in ("reference", "handout")]
    if not all(os.path.exists(p) for p in paths):
        return []
    ref, hand = ({r["exercise"]: r for r in json.load(open(p))["exercises"]} for p in paths)
    body = []
    for ex in sorted(ref):
        marks = [f"{d[ex]['score']}/{d[ex]['max']}" if ex in d and d[ex]["score"] is not None else "ungraded"
                 for d in (ref, hand)]
        body.append([ex, ref[ex]["title"].replace("|", "\\|")] + marks)
    return (["## Course: does the reference score full marks on every exercise, and an untouched handout zero?",
             "", "From [`grade_reference.json`](grade_reference.json) and [`grade_handout.json`](grade_handout.json) "
             "(`scripts/device_check.sh --steps grade_reference,grade_handout`).", ""] +
            table(["exercise", "what the student writes", "reference", "handout"], body, [False, False, True, True])
            + [""])


KINDS = {"whole": whole, "count": count, "worst": worst, "last": last, "best": best,
         "by_distribution": by_distribution}


def short_table(folder, name):
    """The index's short table of one CSV, as Markdown (for a lesson's results block)."""
    for _, csv_name, kind, options in QUESTIONS:
        if csv_name == name:
            return "\n".join(KINDS[kind](read(os.path.join(folder, name)), options)) + "\n"
    raise KeyError(f"{name} has no question in scripts/results_index.py")


def index_lines(folder, gpu_dir):
    """The question sections of the index (Markdown lines), for the CSVs present in `folder`."""
    out = []
    for question, name, kind, options in QUESTIONS:
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            continue
        rows = read(path)
        if not rows:
            continue
        out += [f"## {question}", ""]
        stem = name[:-4]
        for png in sorted(f for f in os.listdir(folder) if f.startswith(stem) and f.endswith(".png")
                          and not any(f.startswith(q[1][:-4]) and len(q[1]) > len(name) for q in QUESTIONS)):
            out += [f"![{png[:-4]}]({png})", ""]
        if kind == "best":
            from_x = f" from {size(options['min_x'])}" if options.get("min_x") else ""
            note = f"; {options['note']}" if options.get("note") else ""
            out += [f"% of the limit measured in the same run (`{options['y']}`), powers of two{from_x}{note}; "
                    f"every size and variant is in [`{name}`]({name}).", ""]
        else:
            note = f" ({options['note']})" if options.get("note") else ""
            out += [f"From [`{name}`]({name}){note}.", ""]
        out += KINDS[kind](rows, options) + [""]
    out += grades(folder)
    listed = {q[1] for q in QUESTIONS} | {"grade_reference.json", "grade_handout.json"}
    others = sorted(f for f in os.listdir(folder) if f.endswith((".csv", ".json", ".txt")) and f not in listed
                    and f != "provenance.csv")
    out += ["## Every other file", "", ", ".join(f"[`{f}`]({f})" for f in others), ""]
    chapters = os.path.join(folder, "chapters")
    if os.path.isdir(chapters):
        pages = sorted(d for d in os.listdir(chapters) if os.path.exists(os.path.join(chapters, d, "README.md")))
        out += ["Per-chapter results pages (sweeps, goal tables, history): " +
                ", ".join(f"[{d}](chapters/{d}/README.md)" for d in pages), ""]
    return out
