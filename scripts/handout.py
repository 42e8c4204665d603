#!/usr/bin/env python3
"""Write the student handout: a copy of the repository in which every exercise region of the
source is replaced by a TODO (its hints, its expected size, and a stub that compiles), and the
reference code that would give an exercise away is left out (LEFT OUT regions).

  python3 scripts/handout.py OUT_DIR            write the handout (OUT_DIR must not exist, or be empty)
  python3 scripts/handout.py --check OUT_DIR    check a handout: no markers and no solution left in it
  python3 scripts/handout.py --list             the exercises, their files and sizes
  python3 scripts/handout.py --solutions OUT_DIR [--exercise NN.K ...]
                                                one patch per exercise (default: all), NN.K.patch,
                                                from the handout's stub back to the reference code

The regions are marked in the reference code (scripts/course/regions.py describes the markers);
scripts/course/exercises.py says how scripts/grade.py grades each exercise, scripts/course/plan.py
in which order a student does them and how long each takes. The handout keeps everything else
(lessons, tests, the grader, docs/results), leaves out the CI folder and this instructor's tooling,
gets its own README.md (from scripts/course/handout_README.md.in) and EXERCISES.md, and is a git
repository with one commit, tagged `handout`, so that students commit their work on top of it.
A solution patch applies inside a fresh handout with `git apply NN.K.patch`; in a student's
copy, `git apply --3way NN.K.patch` merges it with their own commits.
Exit codes: 0 done, 1 a check failed, 2 bad usage, malformed markers or a plan that disagrees
with the exercises.
"""
import argparse
import difflib
import hashlib
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from course import plan  # noqa: E402
from course import regions as rg  # noqa: E402
from course.exercises import EXERCISES, is_host_only  # noqa: E402

ROOT = os.path.dirname(HERE)
GRADE = "python3 scripts/grade.py"
LEFT_OUT_DIRS = (".ci/", ".git/")
# The instructor's side of the course: the grader does not need these, and a handout that held
# this script would offer commands that cannot work there (it has no exercise regions).
INSTRUCTOR_FILES = ("scripts/handout.py", "scripts/course/plan.py", "scripts/course/handout_README.md.in")
README_TEMPLATE = os.path.join(HERE, "course", "handout_README.md.in")
# What the handout's README must not mention: tooling and files that the handout does not hold.
NOT_IN_README = ("{{", ".ci/", "instructor", "solution")
GIT_AUTHOR = ["-c", "user.name=handout", "-c", "user.email=handout@localhost", "-c", "commit.gpgsign=false"]


def die(message):
    print(f"handout: {message}", file=sys.stderr)
    sys.exit(2)


def repository_files(root):
    """Tracked and untracked-but-not-ignored files (git), else every file outside build folders;
    without the CI folder and the instructor's files."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             check=True, capture_output=True).stdout.decode()
        files = [f for f in out.split("\0") if f and os.path.isfile(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, fs in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(".") and not x.startswith("build") and x != "out"]
            files += [os.path.relpath(os.path.join(d, f), root) for f in fs]
    return sorted(f for f in files if not f.startswith(LEFT_OUT_DIRS) and f not in INSTRUCTOR_FILES
                  and "__pycache__" not in f)


def load_regions(root):
    try:
        regions = rg.all_regions(root)
    except ValueError as e:
        die(f"malformed exercise markers: {e}")
    marked = {r.exercise for r in regions if r.kind == "exercise"}
    missing = sorted(set(EXERCISES) - marked)
    unknown = sorted(marked - set(EXERCISES))
    if missing or unknown:
        die(f"exercises without a region: {missing or 'none'}; regions without a grading recipe: {unknown or 'none'}")
    problems = plan.problems(EXERCISES)
    if problems:
        die(f"scripts/course/plan.py disagrees with scripts/course/exercises.py: {'; '.join(problems)}")
    return regions


def exercise_table(regions):
    by = {}
    for r in regions:
        if r.kind == "exercise":
            by.setdefault(r.exercise, []).append(r)
    return by


# ---- EXERCISES.md and README.md ----------------------------------------------------------------

def points(ex):
    """What the grader's full score is: one point a case, one a performance entry with a threshold."""
    spec = EXERCISES[ex]
    return len(spec["cases"]) + sum(p["min"] is not None for p in spec.get("perf", []))


def performance(ex):
    perf = EXERCISES[ex].get("perf", [])
    if not perf:
        return "no performance part"
    return "<br>".join(f"{p['label']} (`{p['column']}` ≥ {p['min']:g})" if p["min"] is not None
                       else f"none (reported, not scored): {p['label']} (`{p['column']}`)" for p in perf)


def duration(minutes):
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def totals():
    return len(plan.ORDER), duration(sum(plan.MINUTES.values())), sum(points(ex) for ex in plan.ORDER)


def write_exercise_list(path, regions):
    by = exercise_table(regions)
    n, total_time, total_points = totals()
    lines = ["# Exercises", "",
             "Each exercise is a `TODO(exercise NN.K)` in the source, with hints and the size of the reference",
             "code. Do them in the order below: it follows the chapters, puts a host model before the kernel",
             f"it describes, and every exercise after those it builds on. {n} exercises, about {total_time},",
             f"{total_points} points. Build once, then grade one exercise:", "",
             "```sh", "cmake --preset course",
             f"{GRADE} {plan.ORDER[0]}            # or any exercise below; --json FILE for the JSON",
             "```", "",
             "Points: one per case (a test case, a checked run, a compute-sanitizer run) and one per",
             "performance threshold met; performance is measured, relative to the same run, once every result",
             "is correct. A case your machine cannot run (no GPU, no compute-sanitizer) is ungraded: left",
             "out of the maximum, never counted as zero. Host exercises need no GPU. Exit codes of the",
             "grader: 0 all correct, 1 a correctness failure, 2 a build or usage error, 3 no GPU (host",
             "parts graded, GPU parts ungraded), 4 a compute-sanitizer error.", "",
             "| # | exercise | what you write | needs a GPU | where | size | time | points | performance threshold |",
             "|---:|---|---|---|---|---|---:|---:|---|"]
    for i, ex in enumerate(plan.ORDER, 1):
        rs = by[ex]
        gpu = "no (host)" if is_host_only(ex) else "yes"
        needs = EXERCISES[ex].get("needs")
        title = rs[0].base_title + (f" (after {', '.join(needs)})" if needs else "")
        where = "<br>".join(f"`{p}`" for p in dict.fromkeys(r.path for r in rs))
        size = "; ".join(r.size for r in rs if r.size)
        lines.append(f"| {i} | {ex} | {title} | {gpu} | {where} | {size} | {plan.MINUTES[ex]} min | {points(ex)} "
                     f"| {performance(ex)} |")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def readme_section(text, heading):
    """The body of one `## heading` section of a Markdown text, or None."""
    lines = text.split("\n")
    if heading not in lines:
        return None
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start:end]).strip()


def write_readme(path):
    """The handout's own README: the template with its placeholders filled in and its leading
    comment (for the repository's readers) left out."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        chapters = readme_section(f.read(), "## Chapters")
    if chapters is None:
        die("README.md has no '## Chapters' section for the handout's README")
    with open(README_TEMPLATE, encoding="utf-8") as f:
        text = f.read()
    text = text[text.index("-->") + 3:].lstrip() if text.startswith("<!--") else text
    n, total_time, total_points = totals()
    host = [ex for ex in plan.ORDER if is_host_only(ex)]
    fill = {"exercise_count": str(n), "total_time": total_time, "points": str(total_points),
            "host_exercises": ", ".join(host[:-1]) + " and " + host[-1], "chapters": chapters}
    for key, value in fill.items():
        text = text.replace("{{" + key + "}}", value)
    if "{{" in text:
        die(f"{README_TEMPLATE}: a placeholder without a value: {text[text.index('{{'):][:40]}")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# ---- writing the handout -----------------------------------------------------------------------

def git(out_dir, *args):
    subprocess.run(["git", "-C", out_dir] + GIT_AUTHOR + list(args), check=True, capture_output=True)


def reference_version():
    try:
        return subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"


def init_git(out_dir, message):
    """One commit, tagged `handout`, by a fixed author: students commit on top of it, `git diff
    handout` shows what they wrote, and a solution patch's index line names blobs it holds."""
    try:
        git(out_dir, "-c", "init.defaultBranch=main", "init", "-q")
        git(out_dir, "add", "-A")
        git(out_dir, "commit", "-q", "--no-verify", "-m", message)
        git(out_dir, "tag", "handout")
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", b"") or b""
        die(f"could not make {out_dir} a git repository: {e} {err.decode(errors='replace').strip()}")


def write_handout(out_dir, regions):
    if os.path.exists(out_dir) and os.listdir(out_dir):
        die(f"{out_dir} exists and is not empty")
    by_file = {}
    for r in regions:
        by_file.setdefault(r.path, []).append(r)
    files = repository_files(ROOT)
    missing = [p for p in by_file if p not in files]
    if missing:
        die(f"regions in files that are not part of the repository: {missing}")
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
    write_readme(os.path.join(out_dir, "README.md"))
    write_exercise_list(os.path.join(out_dir, "EXERCISES.md"), regions)
    n_ex = len({r.exercise for r in regions if r.kind == "exercise"})
    init_git(out_dir, f"Handout: {n_ex} exercises (reference {reference_version()})")
    print(f"handout: {len(files)} files in {out_dir}, a git repository (tag 'handout'); {n_ex} exercises in "
          f"{sum(r.kind == 'exercise' for r in regions)} regions, "
          f"{sum(r.kind == 'left_out' for r in regions)} reference parts left out; list in EXERCISES.md")


# ---- checking a handout ------------------------------------------------------------------------

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


def layout_problems(out_dir):
    """What the handout holds that it should not (CI, the instructor's files, a README that
    mentions them), and the git repository it should be."""
    problems = [f"{p} is part of the handout" for p in LEFT_OUT_DIRS[:1] + INSTRUCTOR_FILES
                if os.path.exists(os.path.join(out_dir, p))]
    if not os.path.isdir(os.path.join(out_dir, ".git")):
        problems.append("not a git repository")
    try:
        with open(os.path.join(out_dir, "README.md"), encoding="utf-8") as f:
            readme = f.read().lower()
        problems += [f"README.md mentions '{w}'" for w in NOT_IN_README if w in readme]
    except OSError:
        problems.append("no README.md")
    return problems


def check_handout(out_dir, regions):
    problems = layout_problems(out_dir)
    secret = solution_lines(regions)
    files = rg.source_files(out_dir)  # hidden folders (.git) and build folders left out
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
    for p in problems:
        print(f"handout check: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"handout check: {len(files)} source files, {todo} TODOs, none of the {len(secret)} solution lines "
          f"and no exercise markers left; README and layout as a handout's")
    return 0


# ---- releasing solutions -----------------------------------------------------------------------

def blob_id(text):
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def file_diff(path, before, after):
    """One file's unified diff in git's form. Its index line names the handout's blob, which the
    handout's first commit holds: that is what lets `git apply --3way` merge it."""
    lines = difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{path}", f"b/{path}")
    body = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return f"diff --git a/{path} b/{path}\nindex {blob_id(before)}..{blob_id(after)}\n{body}"


def solution_patch(ex, regions):
    """The patch from a fresh handout to the reference code of exercise ex: its regions and the
    reference parts left out for it come back as in the reference, markers included (the grader
    then still finds the exercise's title); every other exercise stays a TODO."""
    by_file = {}
    for r in regions:
        by_file.setdefault(r.path, []).append(r)
    out = []
    for path, rs in sorted(by_file.items()):
        if any(r.exercise == ex for r in rs):
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                text = f.read()
            before = rg.replace_regions(text, rs, GRADE)
            after = rg.replace_regions(text, [r for r in rs if r.exercise != ex], GRADE)
            out.append(file_diff(path, before, after))
    return "".join(out)


def write_solutions(out_dir, regions, wanted):
    unknown = sorted(set(wanted) - set(EXERCISES))
    if unknown:
        die(f"unknown exercise(s) {unknown} (python3 scripts/handout.py --list shows them)")
    os.makedirs(out_dir, exist_ok=True)
    for ex in wanted:
        with open(os.path.join(out_dir, f"{ex}.patch"), "w", encoding="utf-8") as f:
            f.write(solution_patch(ex, regions))
    print(f"handout: {len(wanted)} solution patch(es) in {out_dir} ({', '.join(wanted)}); inside a handout: "
          f"git apply {os.path.join(out_dir, wanted[0] + '.patch')} (--3way to merge with a student's commits)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", nargs="?", help="where to write (or, with --check, which handout to check)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="check an existing handout instead of writing one")
    mode.add_argument("--list", action="store_true", help="list the exercises and exit")
    mode.add_argument("--solutions", action="store_true", help="write solution patches into OUT_DIR instead")
    ap.add_argument("--exercise", action="append", metavar="NN.K",
                    help="with --solutions: only this exercise (repeatable; default: every exercise)")
    a = ap.parse_args()
    regions = load_regions(ROOT)
    if a.list:
        for ex, rs in sorted(exercise_table(regions).items()):
            print(f"{ex}  {rs[0].base_title}")
            for r in rs:
                print(f"        {r.path}:{r.first + 1}  ({r.size or 'size not given'})")
        return 0
    if not a.out_dir or (a.exercise and not a.solutions):
        ap.print_usage(sys.stderr)
        return 2
    if a.check:
        return check_handout(a.out_dir, regions)
    if a.solutions:
        write_solutions(a.out_dir, regions, list(dict.fromkeys(a.exercise or plan.ORDER)))
        return 0
    write_handout(a.out_dir, regions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
