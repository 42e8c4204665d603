"""The baselines of a run's results, for the chapter summaries of scripts/device_check.sh.

Which rows are baselines (by name prefix), and which CCCL each was built against: the version
the binary printed ("baselines built against CCCL X.Y.Z") in the run's main output for cub_* and
thrust_* rows, and in the newest-CCCL build's output for cub_latest_* rows; "-" for baselines
without CCCL (shuffle_*), "" where the output is missing."""
import os
import re


def built_cccl(res, output_name):
    """The CCCL version an output file of the run names, or ""."""
    try:
        text = open(os.path.join(res, output_name), errors="replace").read()
    except OSError:
        return ""
    m = re.search(r"baselines built against CCCL ([0-9.]+)", text)
    return m.group(1) if m else ""


class Baselines:
    def __init__(self, res, main_output, latest_output, prefixes=("cub_", "thrust_")):
        self.main = built_cccl(res, main_output)
        self.latest = built_cccl(res, latest_output)
        self.prefixes = tuple(prefixes)

    def is_baseline(self, algo):
        return algo.startswith(self.prefixes)

    def cccl_of(self, algo):
        if algo.startswith("cub_latest_"):
            return self.latest
        return self.main if algo.startswith(("cub_", "thrust_")) else "-"

    def header(self):
        return f"CCCL of the baselines: {self.main or '?'}" + (
            f"; cub_latest_*: {self.latest}" if self.latest else "; no cub_latest_* rows")
