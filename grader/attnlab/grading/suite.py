"""Grade one submission: run the hidden tests against it and collect a ``GradeReport``.

``grade`` grades a folder of exercise files; ``grade_entry`` grades a submission as it was
handed in (a folder, a .zip, notebooks), staged first.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path
from typing import Callable

import pytest

from attnlab.course import Course, CourseError
from attnlab.grading.backends import Backend, InProcessBackend, SandboxBackend
from attnlab.grading.plugin import GradingPlugin, GradingProfile
from attnlab.grading.student import StudentProxy
from attnlab.lifecycle import scratch_prefix
from attnlab.misconceptions import load_catalogue
from attnlab.points import load_points, load_table, pay_for_values
from attnlab.pytest_runs import COMPLETED, first_error_line, run_captured
from attnlab.reference import Reference
from attnlab.results import GradeReport, TestResult
from attnlab.intake.roster import Entry, SubmissionError, shown, stage_submission
from attnlab.sandbox.host import ForkServer, Limits
from attnlab.sandbox.standins import AnswerCache

# The engine's own pytest settings for hidden tests, independent of any project's config.
PYTEST_INI = Path(__file__).with_name("hidden_tests.ini")


def check_submission(course: Course, submission: Path) -> Path:
    submission = Path(submission)
    if not submission.exists():
        raise SubmissionError(f"{submission}: no such folder")
    if not submission.is_dir():
        raise SubmissionError(
            f"{submission}: not a folder (a submission is a folder of exercise files, or a .zip of one)"
        )
    expected = [f"{m}.py" for m in course.modules]
    if not any((submission / name).is_file() for name in expected):
        raise SubmissionError(f"{submission}: not a submission (none of {', '.join(expected)} is in it)")
    return submission.resolve()


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
    extra_plugins: tuple = (),
) -> GradingPlugin:
    """Run the hidden tests (but not the ``decided`` ones) against ``backend``'s submission."""
    student = StudentProxy(backend, [f.name for f in course.functions])
    plugin = GradingPlugin(
        course,
        reference,
        student,
        load_points(course.hidden_tests_dir),
        backend.take_output,
        load_catalogue(course, [f.stem.removeprefix("test_") for f in test_files]),
        decided,
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


def grade(
    course: Course,
    submission: Path,
    *,
    only: list[str] | None = None,
    in_process: bool = False,
    limits: Limits | None = None,
    fork_server: ForkServer | None = None,
    reference: Reference | None = None,
    answer_cache: AnswerCache | None = None,
    decide: Callable[[Backend, list[Path]], tuple[list[str], dict[str, TestResult]]] | None = None,
    backend: Backend | None = None,
) -> GradeReport:
    """Run the hidden tests of ``only`` these exercise files (default: all) against ``submission``.

    ``backend``: how the submission's functions are called (default: a ``SandboxBackend`` with
    ``limits``, ``fork_server`` and ``answer_cache``, or with ``in_process`` an
    ``InProcessBackend``); it is closed when the grading ends. ``decide`` may pass tests before
    the live run: given the backend and the test files, it returns the node ids in suite order
    and the results it decided, and leaves the backend as the live run needs it; only the other
    tests run live.
    """
    submission = check_submission(course, submission)
    test_files = hidden_test_files(course, only)
    started = time.perf_counter()
    reference = reference or Reference(course)
    if backend is not None:
        in_process = isinstance(backend, InProcessBackend)
    elif in_process:
        backend = InProcessBackend(course, submission, reference)
    else:
        backend = SandboxBackend(
            course, submission, reference, limits=limits, fork_server=fork_server, answer_cache=answer_cache
        )
    try:
        decided: dict[str, TestResult] = {}
        order: list[str] = []
        if decide is not None and not in_process:
            order, decided = decide(backend, test_files)
        live: dict[str, TestResult] = {}
        if not order or len(decided) < len(order):
            # Only the files with a test left: collecting a hidden test file costs more than most tests.
            undecided = {n.split("::")[0] for n in order if n not in decided}
            recorded = {n.split("::")[0] for n in order}
            left = [f for f in test_files if f.name in undecided or f.name not in recorded]
            plugin = run_suite(course, left, backend, reference, decided=frozenset(decided))
            live = dict(zip(plugin.nodeids, plugin.results))
    finally:
        backend.close()
        # Taken even when the failure itself is on its way up (a probe's worker that cannot start):
        # the server's next submission starts clean.
        failure = backend.server.take_failure() if isinstance(backend, SandboxBackend) else None
    if failure is not None:  # what the sandbox's failure decided is not the student's grade
        raise failure
    merged = {**decided, **live}
    in_order = set(order)
    nodeids = [n for n in order if n in merged] + [n for n in merged if n not in in_order]
    # Where both paths' results meet: a property is paid only with the values it is about.
    tests = pay_for_values(load_table(course.hidden_tests_dir), [(n, merged[n]) for n in nodeids])
    return GradeReport(
        submission=str(submission), tests=tuple(tests), sandbox=backend.mode, duration=time.perf_counter() - started
    )


def grade_entry(
    course: Course,
    entry: Entry,
    scratch_kind: str = "attnlab-stage",
    grade_folder: Callable[[Path], GradeReport] | None = None,
    pick: str | None = None,
) -> GradeReport:
    """Stage ``entry``'s exercise files in a scratch folder (``lifecycle.scratch_prefix`` of
    ``scratch_kind``: a killed run's copy is removed by the next), grade them with
    ``grade_folder`` (default: ``grade(course, folder)``), and label the report with the entry as
    handed in, not the scratch folder, which is gone by then, with how it was read and what of it
    was not graded (``GradeReport.notes`` and ``not_graded``). ``pick`` (``"newest"``) grades the
    newest of several drafts in it rather than refusing them.

    Raises ``RosterError`` (``NoExerciseFile`` among them) when the entry holds no exercise file
    or is refused, before anything is graded."""
    with tempfile.TemporaryDirectory(prefix=scratch_prefix(scratch_kind)) as scratch:
        staged = stage_submission(entry, course, Path(scratch), pick)
        report = grade_folder(staged.folder) if grade_folder is not None else grade(course, staged.folder)
    notes = (*entry.notes, *report.notes, *staged.notes)
    return dataclasses.replace(
        report, submission=shown(entry.source), notes=notes, not_graded=(*report.not_graded, *staged.not_graded)
    )
