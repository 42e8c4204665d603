#!/usr/bin/env python3
"""Copy a device run's results into docs/results/<gpu>/ and refresh the README tables.

    python3 scripts/update_results.py --from /work/.device/N --gpu h100

The folder is a device run's $OUT: its results.tgz (what scripts/device_check.sh writes) is
unpacked first; a folder of loose files works too. Several runs (say one per chapter) can be
copied in turn: files of the same name are replaced, the others kept.

1. Copies every .csv, .json, .png, *_output.txt and *.ncu.txt (Nsight Compute reports) from the run's $OUT
   folder to docs/results/<gpu>/.
2. Writes docs/results/<gpu>/README.md, an index: the GPU, driver, CUDA and CCCL versions and the
   date (read from the run's summary.txt and device_check.log), then per question one figure and
   a short table drawn from the CSVs (scripts/results_index.py); `--index-only` rewrites just
   this index from the files already there. Rows named
   cub_latest_* come from the second build against the newest CCCL (build-cccl-latest); its
   version (the run's cccl_latest_version.txt) goes into provenance.csv's cccl_latest column
   for every file that holds such rows, and into the README notes.
3. In every README.md of the repository (the chapters' results pages too, not the index of step 2),
   replaces the text between
   `<!-- results:NAME -->` and `<!-- /results:NAME -->` with docs/results/<gpu>/NAME.csv as a
   Markdown table, so no number in a README is typed by hand. A block that already shows another
   GPU's folder keeps it: a run on a second GPU (say `--gpu h200`) fills only its own folder.
A run whose GPU (device_check.log) differs from the GPU of the results already in the folder is
refused (exit 2): one folder holds one GPU's results.
"""
import argparse
import csv
import glob
import os
import re
import shutil
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_index  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def csv_to_markdown(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return "_(empty)_\n"
    head, body = rows[0], rows[1:]
    right = [all(re.fullmatch(r"-?[0-9.eE+-]+|nan|inf", r[i] or "x") for r in body) if body else False
             for i in range(len(head))]
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    for r in body:
        out.append("| " + " | ".join(fmt(v) for v in r) + " |")
    return "\n".join(out) + "\n"


def fmt(v):
    try:
        x = float(v)
    except ValueError:
        # Markdown: '*' would start emphasis ("A*B"), '|' would end the cell.
        return v.replace("\\", "\\\\").replace("*", "\\*").replace("|", "\\|")
    if v.lstrip("-").isdigit():
        return v
    return f"{x:.4g}" if abs(x) < 1e5 else f"{x:.0f}"


def environment(src):
    """(gpu line, versions line, date) from the run's log files."""
    gpu = versions = date = ""
    log = os.path.join(src, "device_check.log")
    if os.path.exists(log):
        with open(log, errors="replace") as f:
            lines = f.read().splitlines()
        for i, line in enumerate(lines):
            if line.startswith("date:") and not date:
                date = line.split(":", 1)[1].strip()
            if line.startswith("name,") and i + 1 < len(lines) and not gpu:
                gpu = lines[i + 1].strip()
            if line.startswith("CUDA runtime") and not versions:
                versions = line.strip()
        if not versions:  # a chapter's own output names them when its run went to a file
            outputs = sorted(glob.glob(os.path.join(src, "*_output.txt")), key=lambda x: ("cccl_latest" in x, x))
            for out in outputs:  # the toolkit's build first: the newest CCCL's is the cccl_latest column
                with open(out, errors="replace") as f:
                    found = [x.strip() for x in f if x.startswith("CUDA runtime")]
                if found:
                    versions = found[0]
                    break
        if not versions:  # no chapter ran (a grading run, say): the compiler's version at least
            for line in lines:
                m = re.match(r"Cuda compilation tools, release (\S+),", line)
                if m:
                    versions = f"CUDA {m.group(1)} (nvcc; no chapter ran to report the runtime, driver and CCCL)"
                    break
    return gpu, versions, date


def run_chapters(src):
    """The chapters line of the run's device_check.log ('all' when it names every chapter)."""
    log = os.path.join(src, "device_check.log")
    if os.path.exists(log):
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith("chapters:"):
                    names = line.split(":", 1)[1].split("steps:")[0].split()
                    chapters = sorted(d for d in os.listdir(ROOT) if re.match(r"\d\d_", d)
                                      and os.path.isfile(os.path.join(ROOT, d, "CMakeLists.txt")))
                    return "all" if set(chapters) <= set(names) else " ".join(names)
    return "unknown"


def write_index(dst, gpu_dir, prov, gpu, versions):
    """docs/results/<gpu>/README.md: the run's environment, then per question one figure and a
    short table (scripts/results_index.py); the CSVs stay whole beside it."""
    runs = sorted({(r["date_utc"], r["chapters"]) for r in prov.values() if r.get("date_utc")})
    title = "the reference GPU" if gpu_dir == "h100" else "a second GPU"
    lines = [f"# Results on {title} ({gpu_dir})", "",
             "Written by `scripts/update_results.py` from runs of `scripts/device_check.sh`;",
             "nothing here is typed by hand. `provenance.csv` names the run each file comes from.", "",
             f"- GPU (name, driver, memory, max SM clock, max memory clock): {gpu or 'unknown'}",
             "- versions, per run: " + ("; ".join(sorted({r["versions"] for r in prov.values() if r.get("versions")}))
                                       or versions or "unknown"),
             "- runs (UTC start, chapters): " + "; ".join(f"{d} ({c})" for d, c in runs)]
    newest = sorted({r.get("cccl_latest") for r in prov.values() if r.get("cccl_latest")})
    if newest:
        lines.append("- rows named `cub_latest_*`: the CUB baselines of a second build against the newest "
                     "CCCL (" + ", ".join(newest) + "; `scripts/fetch_cccl.sh`)")
    lines.append("")
    lines += results_index.index_lines(dst, gpu_dir)
    with open(os.path.join(dst, "README.md"), "w") as f:
        f.write("\n".join(lines))


def read_provenance(dst):
    path = os.path.join(dst, "provenance.csv")
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        return {r["file"]: r for r in csv.DictReader(f)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from", dest="src", help="the device run's $OUT folder")
    ap.add_argument("--gpu", default="h100", help="results sub-folder (default h100)")
    ap.add_argument("--index-only", action="store_true",
                    help="only rewrite docs/results/<gpu>/README.md and the READMEs' results blocks from the "
                         "files already there")
    args = ap.parse_args(argv)
    if args.index_only:
        dst = os.path.join(ROOT, "docs", "results", args.gpu)
        prov = read_provenance(dst)
        first = next(iter(sorted(prov.values(), key=lambda r: r.get("date_utc", ""), reverse=True)), {})
        gpu_line = ""
        old = os.path.join(dst, "README.md")
        if os.path.exists(old):  # the GPU line of the last full index, if there is one
            with open(old) as f:
                m = re.search(r"^- GPU \(name, driver, memory, max SM clock, max memory clock\): (.*)$", f.read(), re.M)
                gpu_line = m.group(1) if m and m.group(1) != "unknown" else ""
        write_index(dst, args.gpu, prov, gpu_line or first.get("gpu", ""), first.get("versions", ""))
        print(f"wrote {os.path.relpath(os.path.join(dst, 'README.md'), ROOT)}")
        refresh_readmes(dst, args.gpu, prov)
        return 0
    if not args.src:
        ap.error("--from is needed (or --index-only)")
    if not os.path.isdir(args.src):
        print(f"update_results: error: '{args.src}' is not a folder", file=sys.stderr)
        return 2
    tgz = os.path.join(args.src, "results.tgz")
    if os.path.exists(tgz):
        unpacked = tempfile.mkdtemp(prefix="tcu_results_")
        with tarfile.open(tgz) as t:
            t.extractall(unpacked, filter="data")
        args.src = unpacked
    dst = os.path.join(ROOT, "docs", "results", args.gpu)
    gpu, versions, date = environment(args.src)
    # One folder, one GPU: a run of another GPU would mix its rows with this one's.
    prov = read_provenance(dst)  # which run each file already there comes from
    held = {r["gpu"] for r in prov.values() if r.get("gpu")}
    run_gpu = gpu.split(",")[0].strip()
    if run_gpu and held and run_gpu not in held:
        print(f"update_results: error: the run is on {run_gpu}, but docs/results/{args.gpu}/ holds results of "
              f"{', '.join(sorted(held))}: give that run a folder of its own (--gpu NAME, e.g. --gpu h200)",
              file=sys.stderr)
        return 2
    os.makedirs(dst, exist_ok=True)
    copied = []
    for pattern in ("*.csv", "*.json", "*.png", "*_output.txt", "*.ncu.txt"):
        for path in sorted(glob.glob(os.path.join(args.src, pattern))):
            shutil.copyfile(path, os.path.join(dst, os.path.basename(path)))
            copied.append(os.path.basename(path))
    if not copied:
        print(f"update_results: error: no results in '{args.src}'", file=sys.stderr)
        return 2

    chapters = run_chapters(args.src)
    latest = ""
    latest_file = os.path.join(args.src, "cccl_latest_version.txt")
    if os.path.exists(latest_file):
        with open(latest_file) as f:
            latest = f.read().strip()

    def latest_of(name):
        """'CCCL X.Y.Z' when the file holds cub_latest_* rows of this run, else ''."""
        if not latest or not name.endswith((".csv", ".txt", ".json")):
            return ""
        with open(os.path.join(dst, name), errors="replace") as f:
            return f"CCCL {latest}" if "cub_latest_" in f.read() else ""

    # Which run each file comes from (several runs can be merged: a full one, then one chapter).
    prov_path = os.path.join(dst, "provenance.csv")
    for name in copied:
        prov[name] = {"file": name, "date_utc": date, "chapters": chapters, "gpu": gpu.split(",")[0], "versions": versions,
                      "cccl_latest": latest_of(name)}
    prov = {k: v for k, v in prov.items() if os.path.exists(os.path.join(dst, k))}
    with open(prov_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["file", "date_utc", "chapters", "gpu", "versions", "cccl_latest"], restval="")
        w.writeheader()
        for k in sorted(prov):
            w.writerow(prov[k])
    write_index(dst, args.gpu, prov, gpu, versions)

    refresh_readmes(dst, args.gpu, prov, versions, date)
    print(f"copied {len(copied)} files to {os.path.relpath(dst, ROOT)}")
    return 0


def refresh_readmes(dst, gpu_dir, prov, versions="", date=""):
    """Step 3: the results blocks of every README. `results:NAME` renders NAME.csv whole;
    `results:index:NAME` renders the short table of NAME.csv that the index shows."""
    marker = re.compile(r"(<!-- results:([A-Za-z0-9_.:-]+) -->\n)(.*?)(<!-- /results:\2 -->)", re.S)
    for readme in glob.glob(os.path.join(ROOT, "**", "README.md"), recursive=True):
        # Every README but the generated results index itself (the chapters' results pages under
        # docs/results/<gpu>/chapters/ are filled like the lessons).
        if os.sep + "build" in readme or os.path.abspath(readme) == os.path.abspath(os.path.join(dst, "README.md")):
            continue
        with open(readme) as f:
            text = f.read()

        def repl(m):
            # A block shows one GPU's file: a run of another GPU (its own folder) leaves it alone.
            shown = re.search(r"`docs/results/([^/`]+)/", m.group(3))
            if shown and shown.group(1) != gpu_dir:
                return m.group(0)
            name = m.group(2)
            short = name.startswith("index:")
            stem = name[len("index:"):] if short else name
            path = os.path.join(dst, stem + ".csv")
            if not os.path.exists(path):
                return m.group(0)
            src = prov.get(stem + ".csv", {})
            newest = f"; cub_latest_* rows: {src['cccl_latest']}" if src.get("cccl_latest") else ""
            what = "the short table of" if short else "from"
            note = (f"_{src.get('gpu') or gpu_dir}, {src.get('versions', versions)}{newest}, "
                    f"{src.get('date_utc', date)[:10]}; {what} `docs/results/{gpu_dir}/{stem}.csv`._\n\n")
            body = results_index.short_table(dst, stem + ".csv") if short else csv_to_markdown(path)
            return m.group(1) + note + body + m.group(4)

        new = marker.sub(repl, text)
        if new != text:
            with open(readme, "w") as f:
                f.write(new)
            print(f"updated {os.path.relpath(readme, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
