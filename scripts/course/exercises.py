"""The course's exercises: how each one is built and graded.

What a student writes lives in the source itself, between `// BEGIN EXERCISE NN.K <title>` and
`// END EXERCISE` (with `// HINT:`, `// SIZE:` and `// STUB:` lines): scripts/handout.py reads
those regions, scripts/grade.py grades them with the recipes below. Every recipe uses what the
chapters already have: their doctest cases (by name) and their executables' `--json` output
(verified against FP64 references, outputs poisoned before every run, the bandwidth of the same
run measured for the % columns).

Case kinds:
  doctest  a test case of a test binary, run alone; exit 77 (no usable GPU) = ungraded
  run      a chapter executable with --json; passes when it exits 0 and every row of `algo`
           passes (rows a chapter skips by design, e.g. fp16 outputs past 65504, do not count)
  sanitize compute-sanitizer (memcheck, racecheck, ...) around a small run; exit 4 when it
           reports an error; ungraded where compute-sanitizer is not installed
Perf entries run an executable with --json and compare one column of `algo`'s row with a
threshold that is relative to the same run (% of the bandwidth probe, % of cuBLAS), so that
every GPU grades fairly.
"""

# Small runs: one timed repetition, no warm-up; the grader adds --json.
QUICK = ["--repeat", "1", "--warmup", "0"]


def doctest(binary, name, gpu=False):
    return {"kind": "doctest", "binary": binary, "test_case": name, "gpu": gpu}


def run(program, algo, args, label):
    return {"kind": "run", "program": program, "algo": algo, "args": list(args) + QUICK, "label": label, "gpu": True}


def sanitize(tool, command, label, kernel=None):
    """command: ["bin", program, args...] or ["test", binary, "-tc=..."]; kernel: a substring of
    the kernel names to check (the others, e.g. the bandwidth probe's, run unchecked and fast)."""
    return {"kind": "sanitize", "tool": tool, "command": list(command), "label": label, "gpu": True, "kernel": kernel}


def perf(program, algo, args, column, minimum, label, select=None):
    return {"program": program, "algo": algo, "args": list(args), "column": column, "min": minimum,
            "label": label, "select": select or {}}


def _gemm(algo, m, n, k, dist):
    return run("02_gemm_variants", algo, ["--algo", algo, "--m", str(m), "--n", str(n), "--k", str(k), "--dist", dist],
               f"{m}x{n}x{k}, {dist}")


def _gemm_sanitize(tool, algo, m, n, k):
    # --no-cublas: the sanitizer checks only the exercise's kernel (SANITIZED_KERNELS below), and
    # with such a filter racecheck fails on cuBLAS's unchecked sm_90 kernels ("failed to handle a
    # hardware exception", at 100x136x72 on an H100) while the filtered kernel itself is clean.
    return sanitize(tool, ["bin", "02_gemm_variants", "--algo", algo, "--m", str(m), "--n", str(n), "--k", str(k),
                           "--dist", "int", "--no-cublas"] + QUICK, f"{tool}, {m}x{n}x{k}")


def _gemm_perf(algo, minimum=None):
    """The step's % of cuBLAS at 2048^3 in a run of every variant (at least `minimum` if given)."""
    label = f"2048^3, at least {minimum:g} % of cuBLAS in the same run" if minimum else "2048^3, % of cuBLAS in the same run"
    return perf("02_gemm_variants", algo, ["--algo", "all", "--m", "2048", "--n", "2048", "--k", "2048", "--no-verify",
                                           "--repeat", "5", "--budget-ms", "100"], "pct_of_cublas", minimum, label)


def _reduce(algo, n, seg, dist, offset=0):
    args = ["--algo", algo, "--n", str(n), "--segment-size", str(seg), "--dist", dist]
    label = f"{n // seg} segment(s) of {seg}, {dist}"
    if offset:
        args += ["--offset", str(offset)]
        label += f", input at d_in + {offset}"
    return run("03_tcu_reduction", algo, args, label)


def _scan(algo, n, seg, dist, exclusive=False):
    args = ["--algo", algo, "--n", str(n), "--segment-size", str(seg), "--dist", dist, "--out", "both"]
    if exclusive:
        args.append("--exclusive")
    return run("04_tcu_scan", algo, args,
               f"{n // seg} segment(s) of {seg}, {dist}, {'exclusive' if exclusive else 'inclusive'}, fp16 and fp32 out")


def _grid_scan(n, dist):
    return run("05_block_grid", "grid_three_kernel",
               ["--op", "scan", "--algo", "grid_three_kernel", "--n", str(n), "--dist", dist], f"n = {n}, {dist}")


def _pinned(n, dist):
    return run("06_jetson_unified_memory", "pinned",
               ["--algo", "pinned", "--n", str(n), "--dist", dist, "--no-probe"], f"n = {n}, {dist}")


T01H, T01G = "test_01_wmma_basics_host", "test_01_wmma_basics_gpu"
T03H, T04H, T06H = "test_03_tcu_reduction_host", "test_04_tcu_scan_host", "test_06_unified_memory_host"

EXERCISES = {
    "01.1": {
        "chapter": "01_wmma_basics",
        "cases": [
            doctest(T01H, "constant matrices have the entries docs/algorithms.md lists"),
            doctest(T01H, "P*A puts the column sums in row 0, A*Pt the row sums in column 0"),
            doctest(T01H, "A*U is the inclusive scan of every row; L*A the exclusive scan of every column"),
            doctest(T01H, "the paper's textual U and L (the erratum) would not give a scan"),
            doctest(T01H, "X*1 broadcasts every row sum along its row"),
        ],
    },
    "01.2": {
        "chapter": "01_wmma_basics",
        "cases": [
            doctest(T01G, "16x16x16, fp16 operands, fp32 accumulator", gpu=True),
            doctest(T01G, "16x16x16, fp16 operands, fp16 accumulator", gpu=True),
            doctest(T01G, "the other fp16 shapes: 32x8x16 and 8x32x16", gpu=True),
            sanitize("memcheck", ["test", T01G, "-tc=16x16x16*"], "memcheck, 16x16x16 in all 8 layouts", "mma_one_tile"),
        ],
    },
    "02.1": {
        "chapter": "02_gemm_variants",
        "cases": [_gemm("tiled_fp32", *s) for s in
                  [(1, 1, 1, "int"), (33, 79, 19, "int"), (16, 16, 16, "uniform"), (100, 37, 70, "normal"),
                   (256, 192, 128, "int")]]
        + [_gemm_sanitize(tool, "tiled_fp32", 33, 79, 19) for tool in ("memcheck", "racecheck", "synccheck")],
        "perf": [_gemm_perf("tiled_fp32")],
    },
    "02.2": {
        "chapter": "02_gemm_variants",
        "cases": [_gemm("wmma_naive", *s) for s in
                  [(16, 16, 16, "int"), (33, 79, 19, "int"), (64, 64, 64, "int"), (100, 37, 70, "normal"),
                   (128, 256, 64, "uniform"), (200, 136, 72, "int")]]
        + [_gemm_sanitize(tool, "wmma_naive", 33, 79, 19) for tool in ("memcheck", "racecheck", "synccheck")],
        "perf": [_gemm_perf("wmma_naive")],
    },
    "02.3": {
        "chapter": "02_gemm_variants",
        "cases": [_gemm("wmma_shmem", *s) for s in
                  [(1, 1, 1, "int"), (33, 79, 19, "int"), (64, 64, 64, "int"), (100, 37, 70, "normal"),
                   (200, 136, 72, "int"), (512, 384, 256, "uniform")]]
        + [_gemm_sanitize(tool, "wmma_shmem", 100, 136, 72) for tool in ("memcheck", "racecheck", "synccheck")],
        "perf": [_gemm_perf("wmma_shmem", 10.0)],
    },
    "03.1": {
        "chapter": "03_tcu_reduction",
        "needs": ["01.1"],
        "cases": [
            doctest(T03H, "CPU model: Reduction16 (V = P·A, column c = segment c) gives the 16 segment sums"),
            doctest(T03H, "CPU model: Reduction256 (P·A, then V·Pᵀ) and the two Reduction256N chains"),
        ],
    },
    "03.2": {
        "chapter": "03_tcu_reduction",
        "cases": [_reduce("reduction16", *s) for s in
                  [(16, 16, "int"), (4096, 16, "uniform"), (16 * 1037, 16, "int", 1), (13 * 1001, 13, "normal", 3),
                   (3 * 7, 3, "int"), (1, 1, "int"), (16 * 100003, 16, "uniform")]]
        + [sanitize("memcheck", ["bin", "03_tcu_reduction", "--algo", "reduction16", "--n", "13013", "--segment-size",
                                 "13", "--offset", "3"] + QUICK, "memcheck, segments of 13 at d_in + 3")],
        "perf": [perf("03_tcu_reduction", "reduction16",
                      ["--algo", "reduction16", "--n", str(1 << 26), "--segment-size", "16", "--no-verify",
                       "--repeat", "10"], "pct_of_read_bw", 50.0,
                      "n = 2^26, segments of 16: at least 50 % of the read bandwidth measured in the same run")],
    },
    "03.3": {
        "chapter": "03_tcu_reduction",
        "cases": [_reduce("reduction256", *s) for s in
                  [(256, 256, "int"), (256 * 1001, 256, "uniform"), (256 * 37, 256, "int", 1),
                   (200 * 513, 200, "normal", 3), (17 * 9, 17, "int"), (1, 1, "int")]]
        + [sanitize("memcheck", ["bin", "03_tcu_reduction", "--algo", "reduction256", "--n", "51300", "--segment-size",
                                 "200", "--offset", "3"] + QUICK, "memcheck, segments of 200 at d_in + 3")],
        "perf": [perf("03_tcu_reduction", "reduction256",
                      ["--algo", "reduction256", "--n", str(1 << 26), "--segment-size", "256", "--no-verify",
                       "--repeat", "10"], "pct_of_read_bw", None, "n = 2^26, segments of 256, % of the read bandwidth")],
    },
    "03.4": {
        "chapter": "03_tcu_reduction",
        "cases": [_reduce("reduction256n_efficient", *s) for s in
                  [(4096, 4096, "int"), (4097 * 33, 4097, "uniform"), (6000 * 7, 6000, "int", 3),
                   (2048 * 101, 2048, "normal", 1), (300 * 11, 300, "int"), (1, 1, "int"),
                   (1 << 22, 1 << 22, "uniform")]]
        + [sanitize("memcheck", ["bin", "03_tcu_reduction", "--algo", "reduction256n_efficient", "--n", "60000",
                                 "--segment-size", "6000", "--offset", "3"] + QUICK,
                    "memcheck, segments of 6000 at d_in + 3")],
        "perf": [perf("03_tcu_reduction", "reduction256n_efficient",
                      # 2^28: at 2^26 (45 µs a run) the reference itself sits at the 80 % line on an H100
                      ["--algo", "reduction256n_efficient", "--n", str(1 << 28), "--segment-size", "4096",
                       "--no-verify", "--repeat", "10"], "pct_of_read_bw", 80.0,
                      "n = 2^28, segments of 4096: at least 80 % of the read bandwidth measured in the same run")],
    },
    "03.5": {
        "chapter": "03_tcu_reduction",
        "cases": [_reduce("reduction256n_block", *s) for s in
                  [(65536, 65536, "int"), (4097 * 33, 4097, "uniform"), (6000 * 7, 6000, "int", 3),
                   (100000 * 3, 100000, "normal", 1), (300 * 11, 300, "int"), (1, 1, "int")]]
        + [sanitize("memcheck", ["bin", "03_tcu_reduction", "--algo", "reduction256n_block", "--n", "60000",
                                 "--segment-size", "6000", "--offset", "3"] + QUICK, "memcheck, segments of 6000"),
           sanitize("racecheck", ["bin", "03_tcu_reduction", "--algo", "reduction256n_block", "--n", "60000",
                                  "--segment-size", "6000"] + QUICK, "racecheck: the barriers between the warps")],
        "perf": [perf("03_tcu_reduction", "reduction256n_block",
                      ["--algo", "reduction256n_block", "--n", str(1 << 26), "--segment-size", str(1 << 16),
                       "--no-verify", "--repeat", "10"], "pct_of_read_bw", 50.0,
                      "n = 2^26, segments of 2^16: at least 50 % of the read bandwidth measured in the same run")],
    },
    "04.1": {
        "chapter": "04_tcu_scan",
        "needs": ["01.1"],
        "cases": [
            doctest(T04H, "model: Scan16 = A·U scans every row of 16"),
            doctest(T04H, "model: Scan256 = A·U + (L·A)·1 is the prefix sum of the row-major tile"),
            doctest(T04H, "model: Scan256N carries the scalar in C"),
        ],
    },
    "04.2": {
        "chapter": "04_tcu_scan",
        "cases": [_scan("scan16", *s) for s in
                  [(16, 16, "int"), (16 * 1001, 16, "uniform"), (13 * 999, 13, "int", True), (7 * 5, 7, "normal"),
                   (1, 1, "uniform"), (16 * 100003, 16, "int")]]
        + [sanitize("memcheck", ["bin", "04_tcu_scan", "--algo", "scan16", "--n", "12987", "--segment-size", "13"]
                    + QUICK, "memcheck, segments of 13")],
        "perf": [perf("04_tcu_scan", "scan16",
                      ["--algo", "scan16", "--n", str(1 << 26), "--segment-size", "16", "--out", "fp16", "--no-verify",
                       "--repeat", "10"], "pct_of_copy_bw", 50.0,
                      "n = 2^26, segments of 16: at least 50 % of the copy bandwidth measured in the same run")],
    },
    "04.3": {
        "chapter": "04_tcu_scan",
        "cases": [_scan("scan256n", *s) for s in
                  [(256, 256, "int"), (4096 * 33, 4096, "uniform"), (1000 * 37, 1000, "int", True),
                   (257 * 11, 257, "normal"), (5, 5, "int", True), (100003, 100003, "int")]]
        + [sanitize("memcheck", ["bin", "04_tcu_scan", "--algo", "scan256n", "--n", "37000", "--segment-size", "1000",
                                 "--exclusive"] + QUICK, "memcheck, segments of 1000, exclusive")],
        "perf": [perf("04_tcu_scan", "scan256n",
                      ["--algo", "scan256n", "--n", str(1 << 26), "--segment-size", "4096", "--out", "fp32",
                       "--no-verify", "--repeat", "10"], "pct_of_copy_bw", 50.0,
                      "n = 2^26, segments of 4096, fp32 out: at least 50 % of the copy bandwidth of the same run")],
    },
    "04.4": {
        "chapter": "04_tcu_scan",
        "cases": [
            doctest(T04H, "model: MatMulScan equals the prefix sum, depth 2k-1, products within the bound"),
            doctest(T04H, "MatMulScan s = 16: the counts the chapter prints"),
        ],
    },
    "05.1": {
        "chapter": "05_block_grid",
        "cases": [_grid_scan(*s) for s in
                  [(1 << 16, "int"), (100003, "uniform"), (1000003, "int"), (5000011, "normal"),
                   ((1 << 22) + 17, "int")]]
        + [sanitize("memcheck", ["bin", "05_block_grid", "--op", "scan", "--algo", "grid_three_kernel", "--n",
                                 "100003"] + QUICK, "memcheck, n = 100003"),
           sanitize("racecheck", ["bin", "05_block_grid", "--op", "scan", "--algo", "grid_three_kernel", "--n",
                                  "100003"] + QUICK, "racecheck, n = 100003")],
        "perf": [perf("05_block_grid", "grid_three_kernel",
                      ["--op", "scan", "--algo", "grid_three_kernel", "--n", str(1 << 26), "--no-verify",
                       "--repeat", "10"], "pct_of_limit", 40.0,
                      "n = 2^26, fp32 out: at least 40 % of the copy bandwidth measured in the same run",
                      select={"out_type": "fp32"})],
    },
    "06.1": {
        "chapter": "06_jetson_unified_memory",
        "cases": [_pinned(*s) for s in [(1, "int"), (1000003, "int"), (1000003, "uniform"), (1 << 24, "normal")]]
        + [sanitize("memcheck", ["bin", "06_jetson_unified_memory", "--algo", "pinned", "--n", "100003",
                                 "--no-probe"] + QUICK, "memcheck, n = 100003")],
    },
    "06.2": {
        "chapter": "06_jetson_unified_memory",
        "cases": [
            doctest(T06H, "PhaseClock charges each interval to the phase it ends, skips go to no phase"),
            doctest(T06H, "PhaseClock refuses marks before start and restarts cleanly"),
        ],
    },
}

# The kernels compute-sanitizer checks per exercise (a substring of their names): the rest of the
# run (the bandwidth probe, the baselines) runs unchecked, so a sanitizer case takes seconds.
SANITIZED_KERNELS = {
    "02.1": "gemm_tiled_fp32_kernel", "02.2": "gemm_wmma_naive_kernel", "02.3": "gemm_wmma_shmem_kernel",
    "03.2": "reduction16_kernel", "03.3": "reduction256_kernel", "03.4": "reduction256n_efficient_kernel",
    "03.5": "reduction256n_block_kernel", "04.2": "scan16_kernel", "04.3": "scan256n_kernel", "05.1": "scan_",
}
for _ex, _kernel in SANITIZED_KERNELS.items():
    for _c in EXERCISES[_ex]["cases"]:
        if _c["kind"] == "sanitize" and not _c.get("kernel"):
            _c["kernel"] = _kernel

# What a chapter needs built besides itself (chapter options of the top-level CMakeLists.txt).
CHAPTER_NEEDS = {
    "05_block_grid": ["03_tcu_reduction", "04_tcu_scan"],
    "06_jetson_unified_memory": ["05_block_grid", "03_tcu_reduction", "04_tcu_scan"],
}


def is_host_only(ex):
    return not any(c.get("gpu") for c in EXERCISES[ex]["cases"]) and not EXERCISES[ex].get("perf")


def targets(ex):
    """The CMake targets an exercise's cases run."""
    out = []
    spec = EXERCISES[ex]
    for c in spec["cases"]:
        if c["kind"] == "doctest":
            out.append(c["binary"])
        elif c["kind"] == "run":
            out.append(c["program"])
        else:
            out.append(c["command"][1])
    out += [p["program"] for p in spec.get("perf", [])]
    return sorted(set(out))


def chapters(ex):
    ch = EXERCISES[ex]["chapter"]
    return [ch] + CHAPTER_NEEDS.get(ch, [])


# Exercises whose code has a barrier (__syncwarp, __syncthreads): racecheck and synccheck run the
# memcheck case's command too, so a missing or misplaced barrier costs points.
BARRIER_EXERCISES = ["03.2", "03.3", "03.4", "03.5", "04.3", "05.1"]
for _ex in BARRIER_EXERCISES:
    _cases = EXERCISES[_ex]["cases"]
    _mem = next(c for c in _cases if c["kind"] == "sanitize" and c["tool"] == "memcheck")
    for _tool in ("racecheck", "synccheck"):
        if not any(c["kind"] == "sanitize" and c["tool"] == _tool for c in _cases):
            _cases.append(sanitize(_tool, _mem["command"], _mem["label"].replace("memcheck", _tool, 1), _mem["kernel"]))

# Every tensor-core kernel builds its constant tiles from exercise 01.1's rules.
for _ex in ["03.2", "03.3", "03.4", "03.5", "04.2", "04.3", "05.1", "06.1"]:
    EXERCISES[_ex].setdefault("needs", [])
    if "01.1" not in EXERCISES[_ex]["needs"]:
        EXERCISES[_ex]["needs"].insert(0, "01.1")
