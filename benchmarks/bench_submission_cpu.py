"""Where a class's time goes: CPU per submission, in the grader and in its sandbox, by kind.

Grades generated correct and buggy submissions (as bench_class.py makes them) one at a time
as a class's grading process does (the recording, one fork server, collections as a grading
process makes them), and prints per submission the wall time, the grader's CPU and the sandbox's
CPU (the fork server and every process it forked, read from /proc). Serial and in one process,
so the figures add up and compare across changes better than a parallel run's wall time on a
noisy machine; run the kinds again to see the noise. ``--live-only`` grades with no recording:
every test's body runs, as a grader without the replay would.

It also prints the **overhead factor** of each kind: its CPU seconds per submission (grader and
sandbox) over the **floor**, the CPU seconds the reference takes to answer the same recorded
calls in one process, on one BLAS thread (the student's own computation, with nothing around it).

    python benchmarks/bench_submission_cpu.py [--students 20] [--rounds 2] [--live-only]
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_class import generate_class  # noqa: E402
from conftest import COURSE  # noqa: E402


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` and its descendants, with the children they have reaped."""
    tick = os.sysconf("SC_CLK_TCK")
    total, stack = 0.0, [pid]
    while stack:
        current = stack.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(value) for value in fields[11:15]) / tick
            for task in os.listdir(f"/proc/{current}/task"):
                stack.extend(int(child) for child in Path(f"/proc/{current}/task/{task}/children").read_text().split())
        except (OSError, ValueError):
            continue
    return total


def reference_floor(reference, script, rounds: int = 3) -> float:
    """CPU seconds the reference takes to answer every recorded call of ``script`` in this
    process, on one BLAS thread (median of ``rounds``): the least any grader of these calls pays."""
    import copy

    from attnlab.reference import one_blas_thread

    calls = [call for test in script.tests for call in test.calls]
    seconds = []
    with one_blas_thread():
        for _ in range(rounds):
            inputs = [copy.deepcopy((call.args, call.kwargs)) for call in calls]
            started = time.process_time()
            for call, (args, kwargs) in zip(calls, inputs):
                try:
                    getattr(reference, call.function)(*args, **kwargs)
                except Exception:  # a refusal the test asks for
                    pass
            seconds.append(time.process_time() - started)
    return statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20, help="submissions of each kind (default 20)")
    parser.add_argument("--rounds", type=int, default=2, help="times each kind is graded, alternating (default 2)")
    parser.add_argument("--live-only", action="store_true", help="no recording: every test's body runs")
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    from attnlab.reference import Reference
    from attnlab.classroom.session import ClassSession
    from attnlab.grading.replay.recording import record_script
    from attnlab.grading.replay.script import Script
    from attnlab.sandbox.host import Limits

    modules = COURSE.tracks["numpy"]
    work = Path(tempfile.mkdtemp(prefix="attnlab-bench-cpu-"))
    try:
        classes = {kind: work / kind for kind in ("correct", "buggy")}
        generate_class(classes["correct"], args.students, 0.0, 0.0, modules, seed=1)
        generate_class(classes["buggy"], args.students, 0.0, 1.0, modules, seed=2)
        reference = Reference(COURSE)
        started = time.perf_counter()
        script = Script([]) if args.live_only else record_script(COURSE, reference, modules)
        if not args.live_only:
            print(f"recording the reference's run: {time.perf_counter() - started:.2f} s (one process)")
        gc.freeze()  # as class grading does before it forks its grading processes
        gc.disable()  # and as its grading processes do: one collection after each submission
        session = ClassSession(COURSE, reference, script, Limits(), modules)
        session.start()
        server = session.fork_server
        try:
            first = sorted(classes["correct"].iterdir())[0]
            session.grade(first)
            figures: dict[str, list[tuple[float, float, float]]] = {kind: [] for kind in classes}
            for _ in range(args.rounds):
                for kind, folder in classes.items():
                    submissions = sorted(folder.iterdir())
                    wall, cpu, sandbox = time.perf_counter(), time.process_time(), tree_cpu_seconds(server.process.pid)
                    for submission in submissions:
                        session.grade(submission)
                        gc.collect()
                        gc.freeze()
                    n = len(submissions)
                    figures[kind].append(
                        (
                            (time.perf_counter() - wall) / n,
                            (time.process_time() - cpu) / n,
                            (tree_cpu_seconds(server.process.pid) - sandbox) / n,
                        )
                    )
        finally:
            server.close()
        print(
            f"per submission, serial, {args.students} of each kind, {args.rounds} rounds (median of the rounds' means):"
        )
        floor = reference_floor(reference, script) if script.tests else None
        print(f"{'kind':8} {'wall s':>8} {'grader CPU s':>13} {'sandbox CPU s':>14} {'total CPU s':>12}")
        totals = {}
        for kind, rounds in figures.items():
            wall, grader, sandbox = (statistics.median(values) for values in zip(*rounds))
            totals[kind] = grader + sandbox
            print(f"{kind:8} {wall:8.3f} {grader:13.3f} {sandbox:14.3f} {grader + sandbox:12.3f}")
        if floor:
            calls = sum(len(test.calls) for test in script.tests)
            print(f"floor: the reference answers the {calls} recorded calls in {floor:.3f} CPU-s (one process)")
            print(f"overhead factor: {totals['correct'] / floor:.1f} (correct), {totals['buggy'] / floor:.1f} (buggy)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
