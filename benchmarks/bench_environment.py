"""Time what a course's own environment costs: finding its packages' files, and a sandbox offering them.

For the bundled course and for a copy that lets students import einops: how long
``SandboxEnvironment.for_course`` takes the first time in a process and then (it is cached), and
how long grading softmax.py of the reference takes (a fork server started, its packages imported,
the workers forked) with bubblewrap and without. Medians of ``--runs`` runs, with min and max.

    python benchmarks/bench_environment.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from attnlab.course import Course
from attnlab.grading.suite import grade
from attnlab.sandbox import environment
from attnlab.sandbox.environment import SandboxEnvironment
from attnlab.sandbox.host import bwrap_path

REPO = Path(__file__).resolve().parents[1]


def einops_course(folder: Path) -> Course:
    for part in ("exercises", "solutions"):
        shutil.copytree(REPO / part, folder / part, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = folder / "exercises" / "course.toml"
    manifest.write_text(re.sub(r"^packages = .*$", 'packages = ["einops"]', manifest.read_text(), flags=re.M))
    return Course.load(folder)


def summary(times: list[float]) -> str:
    return f"median {statistics.median(times):.3f} s (min {min(times):.3f}, max {max(times):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as scratch:
        courses = {"bundled": Course.load(REPO), "einops": einops_course(Path(scratch))}
        for name, course in courses.items():
            first = []
            for _ in range(runs):
                for cached in (
                    environment._with_requirements,
                    environment._entries_of,
                    environment._tops,
                    environment._all_providers,
                ):
                    cached.cache_clear()
                started = time.perf_counter()
                SandboxEnvironment.for_course(course)
                first.append(time.perf_counter() - started)
            started = time.perf_counter()
            for _ in range(100):
                SandboxEnvironment.for_course(course)
            print(
                f"{name}: for_course, first in a process {summary(first)}; cached {(time.perf_counter() - started) * 10:.3f} ms"
            )
        modes = ["bwrap", "plain"] if bwrap_path() else ["plain"]
        for mode in modes:
            os.environ.pop("ATTNLAB_SANDBOX", None)
            if mode == "plain":
                os.environ["ATTNLAB_SANDBOX"] = "plain"
            for name, course in courses.items():
                times = []
                for _ in range(runs):
                    started = time.perf_counter()
                    report = grade(course, REPO / "solutions", only=["softmax"])
                    times.append(time.perf_counter() - started)
                    assert report.score == report.max_score
                print(f"{mode}, {name}: grade softmax.py of the reference, {summary(times)}")


if __name__ == "__main__":
    main()
