"""Grade buggy fixtures one by one (the single path) or as one class (the class path), as the test
suite does, and report wall and CPU seconds (this process and every child it waited for).

    python benchmarks/bench_fixture_grading.py 36 single
    python benchmarks/bench_fixture_grading.py 36 class [--jobs 1]

Two sizes of each give the cost per fixture (the difference) and the class's fixed cost (the
reference's run recorded once); tests/test_buggy_submissions.py grades every buggy fixture as a class.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from attnlab.grading.suite import grade  # noqa: E402 - after the path to tests/
from attnlab.sandbox.environment import SandboxEnvironment  # noqa: E402 - after the path to tests/
from attnlab.sandbox.host import ForkServer, Limits  # noqa: E402 - after the path to tests/
from conftest import COURSE, build_submission, fixtures_in, grade_as_class  # noqa: E402 - after the path to tests/


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fixtures", type=int)
    parser.add_argument("path", choices=["single", "class"])
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    buggy = fixtures_in("buggy")
    chosen = buggy[:: max(1, len(buggy) // args.fixtures)][: args.fixtures]  # spread over the files
    work, limits = Path(tempfile.mkdtemp(prefix="attnlab-bench-fixtures-")), Limits(call_seconds=1.0)
    started, cpu = time.perf_counter(), cpu_seconds()
    if args.path == "single":
        server = ForkServer(SandboxEnvironment.for_course(COURSE))
        try:
            for fixture in chosen:
                submission = build_submission(work / fixture.path.stem, fixture)
                grade(COURSE, submission, only=[fixture.file.removesuffix(".py")], limits=limits, fork_server=server)
        finally:
            server.close()
    else:
        grade_as_class(chosen, work, limits, jobs=args.jobs)
    print(
        f"{args.path} {len(chosen)} fixtures: wall {time.perf_counter() - started:.1f} s, CPU {cpu_seconds() - cpu:.1f} s"
    )


if __name__ == "__main__":
    main()
