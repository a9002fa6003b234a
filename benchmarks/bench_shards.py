"""Grade one generated class whole, then as N shards run at once and merged; report both wall times.

The shards are N processes on this one machine, standing in for the N jobs of a Kubernetes
Indexed Job or a Slurm array (docs/instructors.md): on one machine they share its cores, so
the figure says what splitting costs (each shard records the reference's run and starts its
own sandboxes), not what N machines gain. The merged gradebook is checked to equal the whole
run's, per student and test.

    python benchmarks/bench_shards.py [--students 40] [--shards 4] [--jobs-per-shard 1]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_class import generate_class  # noqa: E402

ATTNLAB = [sys.executable, "-m", "attnlab.cli"]


def rows(gradebook: Path) -> list[tuple]:
    with sqlite3.connect(gradebook) as db:
        return (
            db.execute(
                "SELECT student, score, max_score, error, fingerprint FROM submissions ORDER BY student"
            ).fetchall()
            + db.execute(
                "SELECT student, number, test, status, score, max_score, feedback, misconception FROM results ORDER BY student, number"
            ).fetchall()
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--jobs-per-shard", type=int, default=1)
    parser.add_argument(
        "--jobs", type=int, default=None, help="the whole run's processes (default: the machine's cores)"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="attnlab-bench-shards-"))
    try:
        classroom = work / "class"
        generate_class(
            classroom,
            args.students,
            0.0,
            0.15,
            ["softmax", "scores", "masks", "attention", "multihead", "positions", "efficient"],
        )
        common = ["--track", "numpy", "--course", str(REPO)]
        started = time.perf_counter()
        subprocess.run(
            [
                *ATTNLAB,
                "grade",
                str(classroom),
                "--results",
                str(work / "whole"),
                *common,
                *(["--jobs", str(args.jobs)] if args.jobs else []),
            ],
            check=True,
            capture_output=True,
        )
        whole = time.perf_counter() - started
        started = time.perf_counter()
        shards = [
            subprocess.Popen(
                [
                    *ATTNLAB,
                    "grade",
                    str(classroom),
                    "--shard",
                    f"{k}/{args.shards}",
                    "--jobs",
                    str(args.jobs_per_shard),
                    *common,
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            for k in range(1, args.shards + 1)
        ]
        if any(shard.wait() for shard in shards):
            sys.exit("a shard failed: " + b"".join(s.stderr.read() for s in shards).decode()[-1000:])
        graded = time.perf_counter() - started
        folders = sorted(str(p) for p in (work / "class.results").glob(f"shard-*-of-{args.shards}"))
        subprocess.run(
            [*ATTNLAB, "gradebook", "merge", *folders, "-o", str(work / "class.results")],
            check=True,
            capture_output=True,
        )
        merged = time.perf_counter() - started
        same = rows(work / "whole" / "gradebook.sqlite") == rows(work / "class.results" / "gradebook.sqlite")
        print(f"class of {args.students}, numpy track")
        print(f"whole, one process:               {whole:7.1f} s")
        print(
            f"{args.shards} shards at once, then merged:  {merged:7.1f} s (grading {graded:.1f} s, merge {merged - graded:.1f} s)"
        )
        print(f"merged gradebook equals the whole run's: {same}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
