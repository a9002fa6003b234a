"""The hidden test files and one pytest session over them.

``hidden_test_files`` finds a course's hidden tests, ``run_suite`` runs them against a backend
with the grading plugin, and ``load_hidden_tests`` imports them once in a process that forks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from attnlab.course import Course, CourseError
from attnlab.grading.backends import Backend
from attnlab.grading.plugin import GradingPlugin, GradingProfile
from attnlab.grading.student import StudentProxy
from attnlab.misconceptions import load_catalogue
from attnlab.points import load_points
from attnlab.pytest_runs import COMPLETED, first_error_line, run_captured
from attnlab.reference import Reference

# The engine's own pytest settings for hidden tests, independent of any project's config.
PYTEST_INI = Path(__file__).with_name("hidden_tests.ini")


def hidden_test_files(course: Course, only: list[str] | None = None) -> list[Path]:
    """The hidden test files of ``only`` these exercise files (default: all), checked to exist."""
    unknown = sorted(set(only or ()) - set(course.modules))
    if unknown:
        raise CourseError(f"no exercise file named {', '.join(unknown)} (the course has {', '.join(course.modules)})")
    test_files = [course.hidden_tests_dir / f"test_{m}.py" for m in course.modules if not only or m in only]
    missing = [str(p) for p in test_files if not p.is_file()]
    if missing:
        raise CourseError(f"hidden tests missing: {', '.join(missing)}")
    return test_files


def hidden_pytest_args(course: Course, test_files: list[Path]) -> list[str]:
    """pytest's arguments for hidden test files: the engine's own settings, rooted in hidden_tests/
    (so node ids read ``test_softmax.py::test_values``)."""
    return [
        *map(str, test_files),
        "-c",
        str(PYTEST_INI),
        "--rootdir",
        str(course.hidden_tests_dir),
        "-p",
        "no:cacheprovider",
    ]


def run_suite(
    course: Course,
    test_files: list[Path],
    backend: Backend,
    reference: Reference,
    *,
    decided: frozenset[str] = frozenset(),
    replay: Callable[[str], bool] | None = None,
    extra_plugins: tuple = (),
) -> GradingPlugin:
    """Run the hidden tests (but not the ``decided`` ones) against ``backend``'s submission.
    ``replay``: given a test's node id, asks its recorded calls first and says whether they
    passed it (its body then does not run)."""
    student = StudentProxy(backend, [f.name for f in course.functions])
    plugin = GradingPlugin(
        course,
        reference,
        student,
        load_points(course.hidden_tests_dir),
        backend.take_output,
        load_catalogue(course, [f.stem.removeprefix("test_") for f in test_files]),
        decided,
        replay,
    )
    # No assertion rewriting and no pytest tracebacks: hidden tests report through expect_* messages,
    # and formatting a source-annotated traceback for every failure slowed a failing submission down.
    args = [*hidden_pytest_args(course, test_files), "--assert=plain", "--tb=no", "-q"]
    exit_code, output = run_captured(args, [plugin, *extra_plugins])
    if plugin.course_error is not None:
        raise CourseError(plugin.course_error)
    if plugin.internal_errors or exit_code not in (*COMPLETED, pytest.ExitCode.NO_TESTS_COLLECTED):
        detail = "; ".join(plugin.internal_errors) or first_error_line(output, exit_code)
        raise CourseError(f"the hidden tests could not run: {detail}")
    return plugin


def load_hidden_tests(course: Course, only: list[str] | None = None) -> None:
    """Import what a hidden-test session needs (hypothesis, the hidden test modules, pytest's
    own plugins) in this process, by collecting the tests once: the processes forked from it
    then start warm, not each at its first session. Not the tests of a file that needs a heavy
    library: torch's threads must not start in a process that forks. Whatever goes wrong here
    shows again, with its message, when the tests run."""
    light = [m for m in course.modules if (not only or m in only) and not course.needs_of(m)]
    if light:
        # With grading's hypothesis settings in force as the modules are imported (GradingProfile).
        run_captured(
            [*hidden_pytest_args(course, hidden_test_files(course, light)), "--collect-only", "-q"], [GradingProfile()]
        )
