"""Time ``attnlab release OUT --roster ROSTER`` of this course for a class of N students: wall and CPU seconds.

Each run is a fresh ``attnlab`` process writing a new folder. A *cold* run starts with no practice
copy kept (an empty ``ATTNLAB_PRACTICE_COPIES``): every quiz's answers are hashed, as on a first
release. A *warm* run finds the copies an earlier run kept, as every later release of an unchanged
quiz does. CPU is the children's user + system time (``RUSAGE_CHILDREN``), all threads counted.
Medians of the runs are printed; ``--engine`` times another tree's grader (a "before" figure)
against this course.

    python benchmarks/bench_release.py [--students 30] [--runs 3] [--cold-runs 1] [--engine PATH/grader] [--kept DIR]

``--kept DIR`` keeps the practice copies there (default: a new folder, primed by the cold runs).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def one_release(work: Path, roster: Path, engine: Path, kept: Path, name: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, the release's last line) of one ``attnlab release`` process."""
    env = {**os.environ, "PYTHONPATH": str(engine), "ATTNLAB_PRACTICE_COPIES": str(kept)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnlab.cli",
            "release",
            str(work / name),
            "--roster",
            str(roster),
            "--course",
            str(REPO),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = (done.stderr.strip().splitlines() or ["(nothing printed)"])[-1]
    return wall, cpu, ("" if done.returncode == 0 else f"exit {done.returncode}: ") + last


def report(label: str, runs: list[tuple[float, float, str]]) -> None:
    walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
    print(
        f"{label}: wall {statistics.median(walls):.1f} s, CPU {statistics.median(cpus):.1f} s"
        f" (median of {len(runs)}; walls {', '.join(f'{w:.1f}' for w in walls)})"
    )
    print(f"  last line: {' '.join(runs[-1][2].split())[:200]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3, help="warm runs (the practice copies kept)")
    parser.add_argument("--cold-runs", type=int, default=1, help="cold runs (no practice copy kept)")
    parser.add_argument("--engine", type=Path, default=REPO / "grader", help="the grader folder to time")
    parser.add_argument("--kept", type=Path, default=None, help="where the practice copies are kept (default: new)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="attnlab-bench-release-"))
    try:
        roster = work / "roster.csv"
        rows = ["Student,ID,SIS User ID,SIS Login ID,Section", "    Points Possible,,,,"]
        rows += [f'"Student {n:03}, A",{9000 + n},s{n:05},login{n},Sec A' for n in range(args.students)]
        rows.append('"Student, Test",9999,,,Sec A')
        roster.write_text("\n".join(rows) + "\n", encoding="utf-8")
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; engine {args.engine}")
        kept = args.kept or work / "kept"
        cold = []
        for run in range(args.cold_runs):
            shutil.rmtree(kept, ignore_errors=True)
            cold.append(one_release(work, roster, args.engine, kept, f"cold-{run}"))
        if cold:
            report(f"cold release, {args.students} students", cold)
        warm = [one_release(work, roster, args.engine, kept, f"warm-{run}") for run in range(args.runs)]
        if warm:
            report(f"warm release, {args.students} students", warm)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
