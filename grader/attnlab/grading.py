"""Grade one submission: run the hidden tests against it and collect a ``GradeReport``."""

from __future__ import annotations

import time
from pathlib import Path

from attnlab.backends import InProcessBackend, SandboxBackend
from attnlab.course import Course, CourseError
from attnlab.misconceptions import load_catalogue
from attnlab.plugin import GradingPlugin
from attnlab.points import load_points
from attnlab.pytest_runs import COMPLETED, first_error_line, run_captured
from attnlab.proxy import Submission
from attnlab.reference import Reference
from attnlab.results import GradeReport
from attnlab.sandbox.host import ForkServer, Limits

# The engine's own pytest settings for hidden tests, independent of any project's config.
PYTEST_INI = Path(__file__).with_name("hidden_tests.ini")


class SubmissionError(Exception):
    """The folder cannot be graded (missing, or not a submission); the message is one line."""


def check_submission(course: Course, submission: Path) -> Path:
    submission = Path(submission)
    if not submission.exists():
        raise SubmissionError(f"{submission}: no such folder")
    if not submission.is_dir():
        raise SubmissionError(f"{submission}: not a folder (a submission is a folder of exercise files)")
    expected = [f"{m}.py" for m in course.modules]
    if not any((submission / name).is_file() for name in expected):
        raise SubmissionError(f"{submission}: not a submission (none of {', '.join(expected)} is in it)")
    return submission.resolve()


def grade(
    course: Course,
    submission: Path,
    *,
    only: list[str] | None = None,
    in_process: bool = False,
    limits: Limits | None = None,
    fork_server: ForkServer | None = None,
) -> GradeReport:
    """Run the hidden tests of ``only`` these exercise files (default: all) against ``submission``."""
    submission = check_submission(course, submission)
    unknown = sorted(set(only or ()) - set(course.modules))
    if unknown:
        raise CourseError(f"no exercise file named {', '.join(unknown)} (the course has {', '.join(course.modules)})")
    test_files = [course.hidden_tests_dir / f"test_{m}.py" for m in course.modules if not only or m in only]
    missing = [str(p) for p in test_files if not p.is_file()]
    if missing:
        raise CourseError(f"hidden tests missing: {', '.join(missing)}")
    started = time.perf_counter()
    reference = Reference(course)
    if in_process:
        backend = InProcessBackend(course, submission, reference)
    else:
        backend = SandboxBackend(course, submission, reference, limits=limits, fork_server=fork_server)
    proxy = Submission(backend, [f.name for f in course.functions])
    plugin = GradingPlugin(course, reference, proxy, load_points(course.hidden_tests_dir), backend.take_output, load_catalogue(course))
    # No assertion rewriting and no pytest tracebacks: hidden tests report through expect_* messages,
    # and formatting a source-annotated traceback per failure cost 40 ms each (2.6 s for the stubs).
    args = [*map(str, test_files), "-c", str(PYTEST_INI), "--rootdir", str(course.hidden_tests_dir), "-p", "no:cacheprovider", "--assert=plain", "--tb=no", "-q"]
    try:
        exit_code, output = run_captured(args, [plugin])
    finally:
        backend.close()
    if plugin.internal_errors or exit_code not in COMPLETED:
        detail = "; ".join(plugin.internal_errors) or first_error_line(output, exit_code)
        raise CourseError(f"the hidden tests could not run: {detail}")
    return GradeReport(submission=str(submission), tests=tuple(plugin.results), sandbox=backend.mode, duration=time.perf_counter() - started)
