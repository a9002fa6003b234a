"""Time attnlab as users meet it: grading a submission, the student's check, a quiz's first prompt.

Runs each command as a fresh process (what an instructor or a student waits
for) several times and reports medians, with min and max so the machine's
noise is visible. The sandbox's cost is the ratio of sandboxed grading to the
same hidden tests run in-process (``--no-sandbox``, a benchmark-only switch).

    python benchmarks/bench.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(args: list[str], runs: int, expect_exit: int = 0) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "attnlab.cli", *args], cwd=REPO, capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        if result.returncode != expect_exit:
            sys.exit(f"`attnlab {' '.join(args)}` exited {result.returncode}: {result.stderr.strip()[-500:]}")
    return times


def until_first_prompt(quiz: str, runs: int) -> list[float]:
    """Seconds from starting `attnlab quiz take` to its first answer prompt."""
    times = []
    for _ in range(runs):
        env = {**os.environ, "ATTNLAB_STATE_DIR": tempfile.mkdtemp()}
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "attnlab.cli", "quiz", "take", quiz, "--student", "bench"],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        seen = b""
        while b"> " not in seen:
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                sys.exit(f"`attnlab quiz take {quiz}` ended before its first prompt")
            seen += chunk
        times.append(time.perf_counter() - started)
        process.kill()
        process.wait()
    return times


def row(label: str, times: list[float]) -> str:
    return (
        f"{label:<58} {statistics.median(times):7.3f} s   (min {min(times):.3f}, max {max(times):.3f}, n={len(times)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per measurement (default 7)")
    args = parser.parse_args()

    timed(["grade", "solutions"], 1)  # warm the file cache once; not counted
    measured = {
        "grade solutions --track numpy (sandboxed)": timed(["grade", "solutions", "--track", "numpy"], args.runs),
        "grade solutions --track numpy --no-sandbox": timed(
            ["grade", "solutions", "--track", "numpy", "--no-sandbox"], args.runs
        ),
        "grade solutions --track torch (sandboxed)": timed(["grade", "solutions", "--track", "torch"], args.runs),
        "grade solutions --track torch --no-sandbox": timed(
            ["grade", "solutions", "--track", "torch", "--no-sandbox"], args.runs
        ),
        "grade solutions (both tracks, sandboxed)": timed(["grade", "solutions"], args.runs),
        "grade exercises (stubs, all not implemented)": timed(["grade", "exercises"], args.runs),
        "check solutions --track numpy (no torch)": timed(["check", "solutions", "--track", "numpy"], args.runs),
        "check solutions --track torch": timed(["check", "solutions", "--track", "torch"], args.runs),
        "check solutions (both tracks)": timed(["check", "solutions"], args.runs),
        "check exercises (stubs)": timed(["check"], args.runs, expect_exit=1),
        "quiz take masks: to the first prompt (instructor YAML)": until_first_prompt("masks", args.runs),
    }
    with tempfile.TemporaryDirectory() as folder:
        copy = str(Path(folder) / "masks.json")
        timed(["quiz", "student-copy", "masks", "-o", copy], 1)
        measured["quiz take masks.json: to the first prompt (student copy)"] = until_first_prompt(copy, args.runs)

    print(f"attnlab benchmark: {args.runs} runs each, medians (machine: {os.cpu_count()} cores)")
    for label, times in measured.items():
        print(row(label, times))
    for track in ("numpy", "torch"):
        ratio = statistics.median(measured[f"grade solutions --track {track} (sandboxed)"]) / statistics.median(
            measured[f"grade solutions --track {track} --no-sandbox"]
        )
        print(f"{f'sandbox overhead, {track} track: sandboxed / in-process':<58} {ratio:7.2f}x")


if __name__ == "__main__":
    main()
