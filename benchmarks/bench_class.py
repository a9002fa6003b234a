"""Grade a generated class through the command line and report its throughput.

The class is mostly correct submissions, some buggy ones (tests/submissions/buggy) and
a share of hostile ones (infinite loop, 20 GB allocation, fork of 50 sleepers, ...).
Every student's files differ, as a real class's do: each file carries its author's
name, and a correct submission takes, file by file, the reference or one of the
correct-but-different variants of tests/submissions/correct (logsumexp softmax, a
loop over heads, einsum scores, ...). A buggy or hostile one is a correct one with
that fixture spliced into its file.

Reports wall time, submissions per second, the peak memory of the grader and its
processes, and the ratio to running the same hidden tests in-process without a
sandbox (live pytest per submission, measured on a sample and scaled up); and,
before and after the class, the host's speed on a fixed numpy loop.

It also reports the **main-process share**: the CPU seconds of the grader's main process (what
runs serially whatever the cores) over the CPU seconds of every process of the class run (the
main process, its grading and recording processes, their fork servers and sandbox workers). This
script is a child subreaper, so a process whose parent died without waiting for it is adopted and
waited for here: its CPU is counted too.

    python benchmarks/bench_class.py [--students 200] [--hostile 0.05] [--buggy 0.15] [--jobs N]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from conftest import COURSE, fixtures_in, splice  # noqa: E402

HOSTILE = [
    "infinite_loop",
    "allocates_20_gb",
    "forks_50_sleepers",
    "hangs_at_import",
    "segfault_in_function",
    "reads_the_solutions",
    "opens_a_socket",
]


def generate_class(
    folder: Path, students: int, hostile_share: float, buggy_share: float, modules: list[str], seed: int = 0
) -> dict[str, int]:
    rng = random.Random(seed)
    # Fixtures of the graded files only: a torch bug is no bug on the numpy track.
    correct = [f for f in fixtures_in("correct") if f.file.removesuffix(".py") in modules]
    buggy = [f for f in fixtures_in("buggy") if f.file.removesuffix(".py") in modules]
    hostile = [f for f in fixtures_in("hostile") if f.path.stem in HOSTILE]
    n_hostile = round(students * hostile_share)
    n_buggy = round(students * buggy_share)
    kinds = ["hostile"] * n_hostile + ["buggy"] * n_buggy + ["correct"] * (students - n_hostile - n_buggy)
    rng.shuffle(kinds)
    for index, kind in enumerate(kinds):
        student = f"student{index:03d}"
        chosen = {}  # file -> the fixture spliced into it
        for module in COURSE.modules:
            variants = [f for f in correct if f.file == f"{module}.py"]
            if variants and rng.random() < 0.3:
                chosen[f"{module}.py"] = rng.choice(variants)
        if kind != "correct":
            fixture = rng.choice({"buggy": buggy, "hostile": hostile}[kind])
            chosen[fixture.file] = fixture
        target = folder / student
        target.mkdir(parents=True)
        for module in COURSE.modules:
            source = (COURSE.solutions_dir / f"{module}.py").read_text()
            if f"{module}.py" in chosen:
                source = splice(source, chosen[f"{module}.py"].path.read_text())
            (target / f"{module}.py").write_text(f"# {module}.py, handed in by {student}\n{source}")
    return {kind: kinds.count(kind) for kind in ("correct", "buggy", "hostile")}


def in_process_seconds(folder: Path, sample: int, modules: list[str]) -> float:
    """Median seconds of the hidden tests run live in this process, no sandbox, per submission."""
    from attnlab.grading.suite import grade

    times = []
    for submission in sorted(folder.iterdir())[:sample]:
        started = time.perf_counter()
        grade(COURSE, submission, in_process=True, only=modules)
        times.append(time.perf_counter() - started)
    times.sort()
    return times[len(times) // 2]


def host_speed_probe() -> float:
    """CPU seconds of a fixed single-threaded numpy loop, median of three (0.28 to 0.65 s on this
    machine in one evening). The same command varies by a third within an hour here, and
    this moves with it: a slow run beside a slow probe is the host, not the code."""
    import numpy as np

    matrix = np.random.default_rng(0).random((8, 8))
    seconds = []
    for _ in range(3):
        started = time.process_time()
        for _ in range(100_000):
            (matrix @ matrix).sum()
        seconds.append(time.process_time() - started)
    return sorted(seconds)[1]


# The grader run under a wrapper that writes its main process's own CPU seconds when it exits
# (not a forked child's: they leave with os._exit, and the pid is checked).
MAIN_PROCESS_CPU = """
import atexit, json, os, resource, sys
target, main_pid = sys.argv.pop(1), os.getpid()
def tell():
    if os.getpid() == main_pid:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        with open(target, "w") as out:
            json.dump({"cpu": usage.ru_utime + usage.ru_stime}, out)
atexit.register(tell)
from attnlab.cli import main
sys.argv[0] = "attnlab"
main()
"""

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Adopt orphaned descendants (Linux), so that waiting for them counts their CPU in RUSAGE_CHILDREN."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def reap_adopted(seconds: float = 10.0) -> int:
    """Wait for the descendants adopted here; the number still running after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 0
        if pid == 0:
            if time.monotonic() > deadline:
                return len([p for p in Path("/proc").iterdir() if p.name.isdigit() and _parent_of(p) == os.getpid()])
            time.sleep(0.05)


def _parent_of(proc: Path) -> int | None:
    try:
        return int((proc / "stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--hostile", type=float, default=0.05, help="share of hostile submissions (default 0.05)")
    parser.add_argument("--buggy", type=float, default=0.15, help="share of buggy submissions (default 0.15)")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--baseline-sample", type=int, default=10, help="submissions graded in-process for the ratio")
    parser.add_argument(
        "--track",
        default="numpy",
        choices=[*sorted(COURSE.tracks), "all"],
        help="the track graded (default numpy, as the targets are set for; all: every track)",
    )
    args = parser.parse_args()
    modules = list(COURSE.modules) if args.track == "all" else COURSE.tracks[args.track]

    work = Path(tempfile.mkdtemp(prefix="attnlab-bench-class-"))
    try:
        classroom = work / "class"
        mix = generate_class(classroom, args.students, args.hostile, args.buggy, modules)
        print(
            f"class of {args.students}, {args.track} track: {mix['correct']} correct, {mix['buggy']} buggy, {mix['hostile']} hostile"
        )
        main_cpu_file = work / "main-process-cpu.json"
        command = [
            sys.executable,
            "-c",
            MAIN_PROCESS_CPU,
            str(main_cpu_file),
            "grade",
            str(classroom),
            "--results",
            str(work / "results"),
            "--course",
            str(REPO),
        ]
        if args.track != "all":
            command += ["--track", args.track]
        if args.jobs:
            command += ["--jobs", str(args.jobs)]
        subreaper = become_subreaper()
        probe = host_speed_probe()
        cpu_before = children_cpu()
        started = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - started
        unreaped = reap_adopted()
        all_cpu = children_cpu() - cpu_before
        probe_after = host_speed_probe()
        if result.returncode != 0:
            sys.exit(f"grading failed: {result.stderr.strip()[-1000:]}")
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"wall time            {wall:8.1f} s   (includes recording the reference's run once)")
        print(f"submissions / second {args.students / wall:8.2f}")
        print(f"per submission       {wall / args.students:8.3f} s")
        print(f"peak memory          {peak_mib:8.0f} MiB (largest single process of the run)")
        print(
            f"host speed probe     {probe:8.2f} / {probe_after:.2f} CPU-s before / after (a fixed numpy loop: lower is faster)"
        )
        main_cpu = json.loads(main_cpu_file.read_text())["cpu"]
        counted = (
            "every process waited for"
            if subreaper and not unreaped
            else f"{unreaped} still running, not counted"
            if subreaper
            else "no subreaper here: orphans not counted"
        )
        print(f"CPU of the class     {all_cpu:8.1f} CPU-s in all ({counted}), {main_cpu:.1f} in the main process")
        print(f"main-process share: {main_cpu / all_cpu:.3f}")
        baseline = in_process_seconds(classroom, args.baseline_sample, modules)
        print(
            f"in-process, no sandbox, live pytest: {baseline:.3f} s per submission (median of {args.baseline_sample}), {baseline * args.students:.0f} s for the class serially"
        )
        print(f"ratio sandboxed class / in-process serial: {wall / (baseline * args.students):.3f}")
        rerun_started = time.perf_counter()
        main_cpu_file.unlink()
        subprocess.run(command, capture_output=True, text=True, check=True)
        reap_adopted()
        print(f"rerun with nothing changed: {time.perf_counter() - rerun_started:.1f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
