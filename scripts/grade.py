#!/usr/bin/env python3
"""Grade a course exercise: build what it needs, run its cases, print a table (and JSON).

  python3 scripts/grade.py 03.2                     one exercise
  python3 scripts/grade.py 03.2 --json grade.json   ... and the JSON
  python3 scripts/grade.py host                     every exercise that needs no GPU
  python3 scripts/grade.py all                      every exercise
  python3 scripts/grade.py --list                   the exercises
  python3 scripts/grade.py all --gradescope results.json   Gradescope's autograder output

Every exercise is graded the same way, by what the chapters already check: their doctest cases
and their executables' --json runs (FP64 references, outputs poisoned before every run, odd
sizes, unaligned inputs, integer inputs bit-exact), compute-sanitizer at small sizes where it is
installed, and performance relative to the same run (the bandwidth probe, cuBLAS). The recipes
are in scripts/course/exercises.py; the exercises themselves are marked in the source.

Build: the build folder (default build-course, made by `cmake --preset course`) is configured if
needed and only the targets the exercise runs are built.

Exit codes: 0 every case correct; 1 a correctness failure; 2 a build or usage error; 3 no usable
GPU (host cases graded, GPU cases "ungraded"); 4 compute-sanitizer reported an error.
JSON: {exercise, title, gpu, cuda, cases: [...], perf: [...], score, max, ungraded, exit_code}
(several exercises: {"exercises": [...], "exit_code": ...}).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from course import regions as rg  # noqa: E402
from course.exercises import EXERCISES, chapters, is_host_only, targets  # noqa: E402

ROOT = os.path.dirname(HERE)
EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_NO_GPU, EXIT_SANITIZER = 0, 1, 2, 3, 4
SKIP_TEST = 77  # a GPU test binary without a usable GPU (CTest SKIP_RETURN_CODE)
CASE_TIMEOUT_S = 120
ALL_CHAPTERS = ["01_wmma_basics", "02_gemm_variants", "03_tcu_reduction", "04_tcu_scan", "05_block_grid",
                "06_jetson_unified_memory"]


class UsageError(Exception):
    pass


class BuildError(Exception):
    pass


# ---- build -------------------------------------------------------------------------------------

def configure(build_dir, chapter_set):
    cache = os.path.join(build_dir, "CMakeCache.txt")
    if os.path.exists(cache):
        return
    cmd = ["cmake", "-S", ROOT, "-B", build_dir, "-DTCU_COURSE=ON", "-DCMAKE_BUILD_TYPE=Release"]
    if shutil.which("ninja"):
        cmd += ["-G", "Ninja"]
    print(f"grade: configuring {build_dir} (once): {' '.join(cmd[3:])}", file=sys.stderr)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise BuildError("configure failed:\n" + tail(p.stdout + p.stderr, 40))


def build(build_dir, target_list):
    """Builds the targets, with a progress line on stderr (the build steps done out of all)."""
    cmd = ["cmake", "--build", build_dir, "--target"] + target_list
    print(f"grade: building {' '.join(target_list)}", file=sys.stderr)
    tty = sys.stderr.isatty()
    t0, shown, lines = time.time(), -1, []
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in p.stdout:
        lines.append(line.rstrip("\n"))
        m = re.match(r"\[(\d+)/(\d+)\]", line)
        if not m:
            continue
        done, total = int(m.group(1)), int(m.group(2))
        tenth = 10 * done // max(total, 1)
        if tty:
            print(f"\rgrade: building: step {done} of {total} ({time.time() - t0:.0f} s)", end="", file=sys.stderr)
        elif tenth != shown:  # a log: one line per tenth of the build
            print(f"grade: building: step {done} of {total} ({time.time() - t0:.0f} s)", file=sys.stderr)
        shown = tenth
    p.wait()
    if tty and shown >= 0:
        print(file=sys.stderr)
    if p.returncode != 0:
        errors = [line for line in lines if re.search(r"error|Error", line)]
        raise BuildError("build failed:\n" + "\n".join(errors[:30]) + "\n" + "\n".join(lines[-20:]))
    print(f"grade: built in {time.time() - t0:.0f} s", file=sys.stderr)


def tail(text, n):
    return "\n".join(text.strip().split("\n")[-n:])


def find_binary(build_dir, name):
    for sub in ("bin", "tests"):
        p = os.path.join(build_dir, sub, name)
        if os.path.exists(p):
            return p
    raise BuildError(f"{name} is not built in {build_dir}")


def cuda_version(build_dir):
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("CMAKE_CUDA_COMPILER_VERSION") or line.startswith("CUDAToolkit_VERSION:"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    nvcc = shutil.which("nvcc")
    if nvcc:
        m = re.search(r"release (\d+\.\d+)", subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout)
        if m:
            return m.group(1)
    return None


def sanitizer_path(build_dir):
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("CMAKE_CUDA_COMPILER:"):
                    cand = os.path.join(os.path.dirname(line.split("=", 1)[1].strip()), "compute-sanitizer")
                    if os.path.exists(cand):
                        return cand
    except OSError:
        pass
    return None


# ---- running cases -----------------------------------------------------------------------------

def execute(cmd, timeout=CASE_TIMEOUT_S):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.time() - t0
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out, f"timed out after {timeout} s", time.time() - t0


def parse_json(stdout):
    start = stdout.find("{")
    if start < 0:
        return None
    try:
        return json.loads(stdout[start:])
    except ValueError:
        return None


def row_name(row):
    for key in ("algo", "variant", "mode"):
        if key in row:
            return row[key]
    return None


def row_verdict(row):
    """True (passed), False (failed) or None (not checked by design: skipped, n/a, unverified)."""
    for key in ("pass", "result", "check"):
        if key in row:
            v = row[key]
            if v is True or (isinstance(v, str) and v.strip().upper() in ("TRUE", "PASS")):
                return True
            if v is False or (isinstance(v, str) and v.strip().upper() in ("FALSE", "FAIL")):
                return False
            return None
    return None


def no_gpu_reason(stdout, stderr):
    text = (stderr or "") + (stdout or "")
    for line in text.split("\n"):
        if "GPU" in line or "driver" in line:
            return line.strip()[:200]
    return "no usable GPU"


class Grader:
    def __init__(self, build_dir):
        self.build_dir = build_dir
        self.gpu = None
        self.no_gpu = None  # the reason, once a GPU case found none
        self.sanitizer = sanitizer_path(build_dir)

    def note_device(self, doc):
        dev = doc.get("device") if isinstance(doc, dict) else None
        if isinstance(dev, dict) and dev.get("name") and not self.gpu:
            self.gpu = dev["name"]

    def doctest_case(self, c):
        exe = find_binary(self.build_dir, c["binary"])
        pattern = c["test_case"].replace(",", "\\,")
        rc, out, err, dt = execute([exe, f"--test-case={pattern}", "--no-version"])
        name = f"{c['binary']}: {c['test_case']}"
        if rc == SKIP_TEST:
            self.no_gpu = self.no_gpu or no_gpu_reason(out, err)
            return {"name": name, "status": "ungraded", "detail": self.no_gpu, "seconds": dt}
        m = re.search(r"test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed", out)
        if rc == 0 and m and int(m.group(1)) == 0:
            return {"name": name, "status": "fail", "detail": "no test case of that name", "seconds": dt}
        if rc == 0:
            return {"name": name, "status": "pass", "detail": "", "seconds": dt}
        # doctest's "path:line: ERROR: message" lines, the message kept
        failed = [re.sub(r"^.*?:\d+: ERROR: ", "", line.strip()) for line in out.split("\n")
                  if "ERROR" in line or "CHECK" in line][:3]
        detail = ("crashed or timed out: " + (err or "")[-200:]) if rc is None or rc < 0 else "; ".join(failed)
        return {"name": name, "status": "fail", "detail": detail[:1000], "seconds": dt}

    def run_case(self, c):
        exe = find_binary(self.build_dir, c["program"])
        rc, out, err, dt = execute([exe] + c["args"] + ["--json"])
        name = f"{c['program']} --algo {c['algo']}: {c['label']}"
        if rc == EXIT_NO_GPU:
            self.no_gpu = self.no_gpu or no_gpu_reason(out, err)
            return {"name": name, "status": "ungraded", "detail": self.no_gpu, "seconds": dt}
        doc = parse_json(out)
        if doc is None:
            why = "timed out" if rc is None else f"exit code {rc}, no JSON"
            return {"name": name, "status": "fail", "detail": f"{why}: {tail(err, 3)[:300]}", "seconds": dt}
        self.note_device(doc)
        rows = [r for r in doc.get("results", []) if row_name(r) == c["algo"]]
        verdicts = [row_verdict(r) for r in rows]
        if not rows:
            return {"name": name, "status": "fail", "detail": f"no result row for {c['algo']} (exit code {rc})",
                    "seconds": dt}
        if False in verdicts or rc not in (0, 1):
            errs = [r.get("max_rel_err") for r in rows]
            return {"name": name, "status": "fail", "detail": f"verification failed (max_rel_err {errs}, exit {rc})",
                    "seconds": dt}
        if True not in verdicts:
            return {"name": name, "status": "fail", "detail": "nothing was verified", "seconds": dt}
        return {"name": name, "status": "pass", "detail": "", "seconds": dt}

    def sanitize_case(self, c):
        name = f"compute-sanitizer {c['label']}"
        if self.no_gpu:
            return {"name": name, "status": "ungraded", "detail": self.no_gpu, "seconds": 0.0}
        if not self.sanitizer:
            return {"name": name, "status": "ungraded", "detail": "compute-sanitizer is not installed", "seconds": 0.0,
                    "why": "no_sanitizer"}
        where, prog, *args = c["command"]
        exe = find_binary(self.build_dir, prog)
        if where == "bin":
            args = args + ["--json"]
        cmd = [self.sanitizer, "--tool", c["tool"], "--error-exitcode", "99"]
        if c.get("kernel"):
            cmd += ["--kernel-name", "kns=" + c["kernel"]]
        cmd += [exe] + args
        rc, out, err, dt = execute(cmd)
        summary = re.search(r"ERROR SUMMARY: (\d+) error", out + err)
        hazards = re.search(r"RACECHECK SUMMARY: (\d+) hazard", out + err)
        n_err = int(summary.group(1)) if summary else 0
        if hazards:
            n_err = max(n_err, int(hazards.group(1)))
        if rc == 99 or n_err > 0:
            first = [line for line in (out + err).split("\n") if "=========" in line and "Program hit" not in line]
            return {"name": name, "status": "sanitizer_error", "detail": f"{n_err} error(s): " + " / ".join(
                line.replace("=========", "").strip() for line in first[:3])[:300], "seconds": dt}
        if rc in (EXIT_NO_GPU, SKIP_TEST):
            self.no_gpu = self.no_gpu or no_gpu_reason(out, err)
            return {"name": name, "status": "ungraded", "detail": self.no_gpu, "seconds": dt}
        if rc != 0:
            return {"name": name, "status": "fail", "detail": f"the program failed under the sanitizer (exit {rc})",
                    "seconds": dt}
        return {"name": name, "status": "pass", "detail": "no errors", "seconds": dt}

    def perf_entry(self, p):
        exe = find_binary(self.build_dir, p["program"])
        entry = {"name": f"{p['program']} --algo {p['algo']}: {p['label']}", "metric": p["column"], "value": None,
                 "min": p["min"], "scored": p["min"] is not None}
        if self.no_gpu:
            return dict(entry, status="ungraded", detail=self.no_gpu)
        rc, out, err, dt = execute([exe] + p["args"] + ["--json"])
        entry["seconds"] = dt
        if rc == EXIT_NO_GPU:
            self.no_gpu = self.no_gpu or no_gpu_reason(out, err)
            return dict(entry, status="ungraded", detail=self.no_gpu)
        doc = parse_json(out)
        if doc is None:
            return dict(entry, status="fail", detail=f"exit code {rc}, no JSON: {tail(err, 2)[:200]}")
        self.note_device(doc)
        rows = [r for r in doc.get("results", []) if row_name(r) == p["algo"] and
                all(str(r.get(k)) == v for k, v in p["select"].items())]
        vals = [r.get(p["column"]) for r in rows if isinstance(r.get(p["column"]), (int, float))]
        if not vals:
            return dict(entry, status="fail", detail=f"no {p['column']} for {p['algo']}")
        entry["value"] = max(vals)
        for key in ("read_stream_gb_per_s", "copy_gb_per_s"):
            if key in doc:
                entry[key] = doc[key]
        if p["min"] is None:
            return dict(entry, status="info", detail="reported, not scored")
        ok = entry["value"] >= p["min"]
        return dict(entry, status="pass" if ok else "fail",
                    detail=f"{entry['value']:.1f} {'>=' if ok else '<'} {p['min']:g}")


def grade_one(ex, grader, titles):
    spec = EXERCISES[ex]
    cases, perf = [], []
    for c in spec["cases"]:
        kind = c["kind"]
        if kind == "doctest":
            cases.append(grader.doctest_case(c))
        elif kind == "run":
            cases.append(grader.run_case(c))
        else:
            cases.append(grader.sanitize_case(c))
        cases[-1]["kind"] = kind
    # Performance only counts for code that is correct.
    correct = all(c["status"] == "pass" for c in cases if c["kind"] != "sanitize")
    for p in spec.get("perf", []):
        if correct or grader.no_gpu:
            perf.append(grader.perf_entry(p))
        else:
            perf.append({"name": f"{p['program']} --algo {p['algo']}: {p['label']}", "metric": p["column"],
                         "value": None, "min": p["min"], "scored": p["min"] is not None, "status": "fail",
                         "detail": "not measured: the cases are not all correct"})
    graded = [c for c in cases if c["status"] != "ungraded"] + [p for p in perf if p["scored"] and p["status"] != "ungraded"]
    score = sum(1 for c in graded if c["status"] == "pass")
    ungraded = sum(1 for c in cases if c["status"] == "ungraded") + sum(
        1 for p in perf if p["scored"] and p["status"] == "ungraded")
    if any(c["status"] == "sanitizer_error" for c in cases):
        code = EXIT_SANITIZER
    elif any(c["status"] == "fail" for c in cases):
        code = EXIT_FAIL
    elif any(c["status"] == "ungraded" and c.get("why") != "no_sanitizer" for c in cases + perf):
        code = EXIT_NO_GPU
    else:
        code = EXIT_OK
    return {"exercise": ex, "title": titles.get(ex, ""), "chapter": spec["chapter"], "needs": spec.get("needs", []),
            "gpu": grader.gpu, "cuda": None, "no_gpu": grader.no_gpu, "cases": cases, "perf": perf,
            "score": score if graded else None, "max": len(graded) if graded else None, "ungraded": ungraded,
            "exit_code": code}


WRAP = 100  # columns of the wrapped details


def print_line(status, seconds, name, detail):
    """One case: status and time, the full name, then the detail wrapped and indented under it."""
    lead = f"  {status.upper():<9} {'' if seconds is None else f'{seconds:6.1f} s':>8}  "
    print(f"{lead}{name}")
    for line in textwrap.wrap(detail or "", WRAP - len(lead), break_on_hyphens=False):
        print(" " * len(lead) + line)


def print_report(r):
    print(f"\n== exercise {r['exercise']}: {r['title']}  ({r['chapter']})")
    if r["needs"]:
        print(f"   builds on exercise(s) {', '.join(r['needs'])}")
    for c in r["cases"]:
        print_line(c["status"], c.get("seconds"), c["name"], "" if c["status"] == "ungraded" else c["detail"])
    for p in r["perf"]:
        val = "" if p["value"] is None else f"{p['metric']} = {p['value']:.1f}; "
        detail = "" if p["status"] == "ungraded" else val + p.get("detail", "")
        print_line(p["status"], None, p["name"], detail)
    score = "ungraded" if r["score"] is None else f"{r['score']}/{r['max']}"
    reasons = sorted({c["detail"] for c in r["cases"] + r["perf"] if c["status"] == "ungraded"})
    words = ["no usable GPU (see the first line)" if why == r.get("no_gpu") else why for why in reasons]
    extra = f" ({r['ungraded']} ungraded: {'; '.join(words)})" if r["ungraded"] else ""
    print(f"  score {score}{extra}")


def overall(codes):
    for c in (EXIT_USAGE, EXIT_SANITIZER, EXIT_FAIL, EXIT_NO_GPU):
        if c in codes:
            return c
    return EXIT_OK


def main():
    ap = argparse.ArgumentParser(description="Grade course exercises (see the top of this file).")
    ap.add_argument("exercise", nargs="*", help="NN.K, 'host' (every exercise without a GPU) or 'all'")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON ('-': stdout)")
    ap.add_argument("--gradescope", metavar="FILE",
                    help="also write Gradescope's results.json: a test per case, the total score")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-course"),
                    help="build folder (default build-course; configured if needed)")
    ap.add_argument("--no-build", action="store_true", help="grade what is built, build nothing")
    ap.add_argument("--list", action="store_true", help="list the exercises")
    try:
        a = ap.parse_args()
    except SystemExit as e:
        return EXIT_USAGE if e.code else EXIT_OK
    titles = rg.exercise_titles(ROOT)
    if a.list:
        for ex in sorted(EXERCISES):
            print(f"{ex}  {'host' if is_host_only(ex) else 'GPU '}  {titles.get(ex, '')}")
        return EXIT_OK
    wanted = []
    for e in a.exercise:
        if e == "all":
            wanted += sorted(EXERCISES)
        elif e == "host":
            wanted += [x for x in sorted(EXERCISES) if is_host_only(x)]
        elif e in EXERCISES:
            wanted.append(e)
        else:
            print(f"grade: unknown exercise '{e}' (python3 scripts/grade.py --list shows them)", file=sys.stderr)
            return EXIT_USAGE
    wanted = list(dict.fromkeys(wanted))
    if not wanted:
        ap.print_usage(sys.stderr)
        return EXIT_USAGE
    build_dir = os.path.abspath(a.build_dir)
    try:
        if not a.no_build:
            configure(build_dir, sorted({ch for ex in wanted for ch in chapters(ex)}))
            build(build_dir, sorted({t for ex in wanted for t in targets(ex)}))
        grader = Grader(build_dir)
        results = [grade_one(ex, grader, titles) for ex in wanted]
    except BuildError as e:
        print(f"grade: {e}", file=sys.stderr)
        doc = {"exercise": wanted[0] if len(wanted) == 1 else wanted, "error": str(e)[:4000], "score": None,
               "max": None, "exit_code": EXIT_USAGE}
        write_json(a.json, doc)
        write_json(a.gradescope, {"score": 0, "output": f"The build failed:\n{str(e)[:4000]}", "tests": []})
        return EXIT_USAGE
    cuda = cuda_version(build_dir)
    for r in results:
        r["cuda"] = cuda
        r["gpu"] = r["gpu"] or grader.gpu
    print(f"GPU: {grader.gpu or 'none usable'}{' (' + grader.no_gpu + ')' if grader.no_gpu else ''}; CUDA {cuda}")
    for r in results:
        print_report(r)
    code = overall([r["exit_code"] for r in results])
    if len(results) > 1:
        print("\nsummary: " + ", ".join(
            f"{r['exercise']} {'ungraded' if r['score'] is None else str(r['score']) + '/' + str(r['max'])}"
            for r in results))
    write_json(a.json, results[0] if len(results) == 1 else {"exercises": results, "exit_code": code})
    write_json(a.gradescope, gradescope_results(results))
    return code


def gradescope_results(results):
    """Gradescope's results.json: one test per case and per performance entry (1 point each; a
    performance entry without a threshold is shown, worth 0), the total score, a summary."""
    tests = []
    for r in results:
        for c in r["cases"] + r["perf"]:
            scored = c.get("scored", True)
            passed = c["status"] in ("pass", "info")
            output = c.get("detail") or ""
            if c["status"] == "ungraded":
                output = f"not graded here: {c.get('detail')}"
            elif c["status"] == "sanitizer_error":
                output = f"compute-sanitizer reported an error: {output}"
            tests.append({"name": f"{r['exercise']} {c['name']}", "score": 1.0 if (scored and c["status"] == "pass") else 0.0,
                          "max_score": 1.0 if scored else 0.0, "status": "passed" if passed else "failed",
                          "output": output})
    summary = "; ".join(f"{r['exercise']} {'ungraded' if r['score'] is None else str(r['score']) + '/' + str(r['max'])}"
                        for r in results)
    return {"score": sum(t["score"] for t in tests), "output": f"GPU: {results[0].get('gpu') or 'none usable'}. {summary}",
            "tests": tests}


def write_json(path, doc):
    if not path:
        return
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    sys.exit(main())
