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
        process = subprocess.Popen([sys.executable, "-m", "attnlab.cli", "quiz", "take", quiz, "--student", "bench"], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
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
    return f"{label:<52} {statistics.median(times):7.3f} s   (min {min(times):.3f}, max {max(times):.3f}, n={len(times)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per measurement (default 7)")
    args = parser.parse_args()

    timed(["grade", "solutions"], 1)  # warm the file cache once; not counted
    sandboxed = timed(["grade", "solutions"], args.runs)
    in_process = timed(["grade", "solutions", "--no-sandbox"], args.runs)
    stubs = timed(["grade", "exercises"], args.runs)
    check_reference = timed(["check", "solutions"], args.runs)
    check_stubs = timed(["check"], args.runs, expect_exit=1)
    quiz_yaml = until_first_prompt("masks", args.runs)
    with tempfile.TemporaryDirectory() as folder:
        copy = str(Path(folder) / "masks.json")
        timed(["quiz", "student-copy", "masks", "-o", copy], 1)
        quiz_copy = until_first_prompt(copy, args.runs)

    print(f"attnlab benchmark: {args.runs} runs each, medians (machine: {__import__('os').cpu_count()} cores)")
    print(row("grade solutions (sandboxed, full hidden suite)", sandboxed))
    print(row("grade solutions --no-sandbox (in-process)", in_process))
    print(row("grade exercises (stubs, all not implemented)", stubs))
    print(row("check solutions (public tests)", check_reference))
    print(row("check exercises (stubs)", check_stubs))
    print(row("quiz take masks: to the first prompt (instructor YAML)", quiz_yaml))
    print(row("quiz take masks.json: to the first prompt (student copy)", quiz_copy))
    ratio = statistics.median(sandboxed) / statistics.median(in_process)
    print(f"{'sandbox overhead: sandboxed / in-process':<52} {ratio:7.2f}x")


if __name__ == "__main__":
    main()
