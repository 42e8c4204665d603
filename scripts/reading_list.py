#!/usr/bin/env python3
"""What a student reads for each lesson of a chapter: the lesson file (kernels/NN_*.cu) and every
header of this repository it includes, directly or through another header.

    python3 scripts/reading_list.py 03_tcu_reduction            # print the chapter's table
    python3 scripts/reading_list.py --write 03_tcu_reduction …  # refresh it in the README(s)
    python3 scripts/reading_list.py --check 03_tcu_reduction …  # exit 1 where a README is stale

A README holds the table between the lines `<!-- reading-list -->` and `<!-- /reading-list -->`.
The headers every lesson of the chapter reads are named once, above the table; each row names the
ones its lesson adds, and counts all it reads: files and lines, the lesson file included.
Exit code: 0, 1 (--check: stale or missing table), 2 (bad usage).
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
LESSON = re.compile(r"^\d\d[a-z]?_\w+\.(cu|cuh)$")
BEGIN, END = "<!-- reading-list -->", "<!-- /reading-list -->"


def includes(path):
    """The repository files `path` includes with quotes: relative to the root, else to its folder."""
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        text = f.read()
    out = []
    for name in INCLUDE.findall(text):
        for base in (ROOT, os.path.join(ROOT, os.path.dirname(path))):
            full = os.path.normpath(os.path.join(base, name))
            if os.path.isfile(full):
                out.append(os.path.relpath(full, ROOT))
                break
    return out


def reads(lesson):
    """Every file a reader of `lesson` meets: the lesson and its headers, transitively."""
    seen, todo = [], [lesson]
    while todo:
        p = todo.pop(0)
        if p in seen:
            continue
        seen.append(p)
        todo += [q for q in includes(p) if q not in seen]
    return seen


def lines(path):
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        return sum(1 for _ in f)


def table(chapter):
    kdir = os.path.join(chapter, "kernels")
    lessons = sorted(f for f in os.listdir(os.path.join(ROOT, kdir)) if LESSON.match(f))
    if not lessons:
        raise SystemExit(f"reading_list.py: no lesson files in {kdir}/")
    closures = {f: reads(os.path.join(kdir, f)) for f in lessons}
    shared = set.intersection(*(set(c[1:]) for c in closures.values()))
    order = sorted(shared, key=lambda p: (len(reads(p)), p))  # what a header builds on comes first

    def link(p):
        return f"[`{os.path.basename(p)}`]({os.path.relpath(os.path.join(ROOT, p), os.path.join(ROOT, chapter))})"

    out = [f"Every lesson reads {', '.join(link(p) for p in order)} "
           f"({sum(lines(p) for p in order)} lines); each row adds:", "",
           "| lesson file | headers it adds | files read | lines read |", "|---|---|---:|---:|"]
    for f, c in closures.items():
        extra = [p for p in c[1:] if p not in shared]
        out.append(f"| [`{f}`](kernels/{f}) | {', '.join(link(p) for p in extra) or '—'} | {len(c)} | "
                   f"{sum(lines(p) for p in c)} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("chapters", nargs="+", help="chapter folders, e.g. 03_tcu_reduction")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="refresh the table in each chapter's README.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when a README's table is missing or stale")
    a = ap.parse_args()
    stale = []
    for ch in a.chapters:
        ch = ch.rstrip("/")
        if not os.path.isdir(os.path.join(ROOT, ch, "kernels")):
            print(f"reading_list.py: '{ch}' is not a chapter with a kernels/ folder", file=sys.stderr)
            return 2
        t = table(ch)
        if not (a.write or a.check):
            print(t)
            continue
        readme = os.path.join(ROOT, ch, "README.md")
        with open(readme, encoding="utf-8") as f:
            text = f.read()
        if BEGIN not in text or END not in text:
            stale.append(f"{ch}/README.md: no {BEGIN} … {END} lines")
            continue
        new = text[:text.index(BEGIN) + len(BEGIN)] + "\n" + t + "\n" + text[text.index(END):]
        if new != text:
            if a.write:
                with open(readme, "w", encoding="utf-8") as f:
                    f.write(new)
                print(f"reading_list.py: refreshed {ch}/README.md")
            else:
                stale.append(f"{ch}/README.md: the reading list is stale (scripts/reading_list.py --write {ch})")
    for s in stale:
        print(s, file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
