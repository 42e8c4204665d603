#!/usr/bin/env python3
"""Write the student handout: a copy of the repository in which every exercise region of the
source is replaced by a TODO (its hints, its expected size, and a stub that compiles), and the
reference code that would give an exercise away is left out (LEFT OUT regions).

  python3 scripts/handout.py OUT_DIR            write the handout (OUT_DIR must not exist, or be empty)
  python3 scripts/handout.py --check OUT_DIR    check a handout: no markers and no solution left in it
  python3 scripts/handout.py --list             the exercises, their files and sizes

The regions are marked in the reference code (scripts/course/regions.py describes the markers);
scripts/course/exercises.py says how scripts/grade.py grades each exercise. The handout keeps
everything else (lessons, tests, the grader, docs/results) and leaves out the CI folder.
Exit codes: 0 done, 1 a check failed, 2 bad usage or malformed markers.
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from course import regions as rg  # noqa: E402
from course.exercises import EXERCISES  # noqa: E402

ROOT = os.path.dirname(HERE)
GRADE = "python3 scripts/grade.py"
LEFT_OUT_DIRS = (".ci/", ".git/")


def repository_files(root):
    """Tracked and untracked-but-not-ignored files (git), else every file outside build folders."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             check=True, capture_output=True).stdout.decode()
        files = [f for f in out.split("\0") if f and os.path.isfile(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, fs in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(".") and not x.startswith("build") and x != "out"]
            files += [os.path.relpath(os.path.join(d, f), root) for f in fs]
    return sorted(f for f in files if not f.startswith(LEFT_OUT_DIRS) and "__pycache__" not in f)


def load_regions(root):
    try:
        regions = rg.all_regions(root)
    except ValueError as e:
        sys.exit(f"handout: malformed exercise markers: {e}")
    marked = {r.exercise for r in regions if r.kind == "exercise"}
    missing = sorted(set(EXERCISES) - marked)
    unknown = sorted(marked - set(EXERCISES))
    if missing or unknown:
        print(f"handout: exercises without a region: {missing or 'none'}; regions without a grading recipe: "
              f"{unknown or 'none'}", file=sys.stderr)
        sys.exit(2)
    return regions


def exercise_table(regions):
    by = {}
    for r in regions:
        if r.kind == "exercise":
            by.setdefault(r.exercise, []).append(r)
    return by


def write_exercise_list(path, regions):
    by = exercise_table(regions)
    lines = ["# Exercises", "",
             "Each exercise is a `TODO(exercise NN.K)` in the source, with hints and the size of the reference",
             "solution. Build and grade one exercise with two commands (the first only once):", "",
             "```sh", "cmake --preset course", f"{GRADE} 03.2            # or any exercise below; --json FILE for the JSON",
             "```", "",
             "Host exercises need no GPU. Exit codes of the grader: 0 all correct, 1 a correctness",
             "failure, 2 a build or usage error, 3 no GPU (host parts graded, GPU parts ungraded), 4 a",
             "compute-sanitizer error.", "",
             "| exercise | what you write | needs a GPU | where | size |", "|---|---|---|---|---|"]
    for ex in sorted(by):
        rs = by[ex]
        gpu = "no (host)" if not any(c.get("gpu") for c in EXERCISES[ex]["cases"]) else "yes"
        needs = EXERCISES[ex].get("needs")
        title = rs[0].base_title + (f" (after {', '.join(needs)})" if needs else "")
        where = "<br>".join(f"`{p}`" for p in dict.fromkeys(r.path for r in rs))
        size = "; ".join(r.size for r in rs if r.size)
        lines.append(f"| {ex} | {title} | {gpu} | {where} | {size} |")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def write_handout(out_dir, regions):
    if os.path.exists(out_dir) and os.listdir(out_dir):
        sys.exit(f"handout: {out_dir} exists and is not empty")
    by_file = {}
    for r in regions:
        by_file.setdefault(r.path, []).append(r)
    files = repository_files(ROOT)
    for rel in files:
        src, dst = os.path.join(ROOT, rel), os.path.join(out_dir, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if rel in by_file:
            with open(src, encoding="utf-8") as f:
                text = f.read()
            with open(dst, "w", encoding="utf-8") as f:
                f.write(rg.replace_regions(text, by_file[rel], GRADE))
            shutil.copymode(src, dst)
        else:
            shutil.copy2(src, dst)
    missing = [p for p in by_file if p not in files]
    if missing:
        sys.exit(f"handout: regions in files that are not part of the repository: {missing}")
    write_exercise_list(os.path.join(out_dir, "EXERCISES.md"), regions)
    n_ex = len({r.exercise for r in regions if r.kind == "exercise"})
    print(f"handout: {len(files)} files in {out_dir}; {n_ex} exercises in "
          f"{sum(r.kind == 'exercise' for r in regions)} regions, "
          f"{sum(r.kind == 'left_out' for r in regions)} reference parts left out; list in EXERCISES.md")


def solution_lines(regions):
    """Reference lines of the regions that occur nowhere else in the reference source: the
    handout must not contain any of them."""
    inside = set()
    for r in regions:
        inside.update(r.code)
    outside = {}
    for rel in rg.source_files(ROOT):
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            lines = f.read().split("\n")
        keep = [True] * len(lines)
        for r in regions:
            if r.path == rel:
                for i in range(r.first, r.last + 1):
                    keep[i] = False
        for line, k in zip(lines, keep):
            if k:
                outside[line.strip()] = True
    stubs = {line.strip() for r in regions for line in r.stub}  # what the handout itself writes
    out = {}
    for r in regions:
        for line in r.code:
            s = line.strip()
            if len(s) >= 12 and not s.startswith("//") and s not in outside and s not in stubs:
                out.setdefault(s, f"{r.path} ({r.exercise})")
    return out


def check_handout(out_dir, regions):
    problems = []
    secret = solution_lines(regions)
    files = rg.source_files(out_dir)
    for rel in files:
        with open(os.path.join(out_dir, rel), encoding="utf-8") as f:
            text = f.read()
        for marker in ("// BEGIN EXERCISE", "// END EXERCISE", "// BEGIN LEFT OUT", "// END LEFT OUT"):
            if marker in text:
                problems.append(f"{rel}: still holds '{marker}'")
        for line in text.split("\n"):
            where = secret.get(line.strip())
            if where:
                problems.append(f"{rel}: holds a line of the solution of {where}: {line.strip()[:80]}")
    todo = sum(open(os.path.join(out_dir, rel), encoding="utf-8").read().count("// TODO(exercise ") for rel in files)
    want = sum(r.kind == "exercise" for r in regions)
    if todo != want:
        problems.append(f"{todo} TODO(exercise ...) lines, want {want}")
    if os.path.exists(os.path.join(out_dir, ".ci")):
        problems.append(".ci/ is part of the handout")
    for p in problems:
        print(f"handout check: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"handout check: {len(files)} source files, {todo} TODOs, none of the {len(secret)} solution lines "
          f"and no exercise markers left")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", nargs="?", help="where to write (or, with --check, which handout to check)")
    ap.add_argument("--check", action="store_true", help="check an existing handout instead of writing one")
    ap.add_argument("--list", action="store_true", help="list the exercises and exit")
    a = ap.parse_args()
    regions = load_regions(ROOT)
    if a.list:
        for ex, rs in sorted(exercise_table(regions).items()):
            print(f"{ex}  {rs[0].base_title}")
            for r in rs:
                print(f"        {r.path}:{r.first + 1}  ({r.size or 'size not given'})")
        return 0
    if not a.out_dir:
        ap.print_usage(sys.stderr)
        return 2
    if a.check:
        return check_handout(a.out_dir, regions)
    write_handout(a.out_dir, regions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
