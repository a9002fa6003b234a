"""Grade one submission: the one procedure every way of grading follows.

``grade`` grades a folder of exercise files; ``grade_entry`` grades a submission as it was
handed in (a folder, a .zip, notebooks), staged first. Alone, in a class, in a shard or on
Gradescope, a sandboxed submission is graded by ``grade`` with the same arguments but for the
fork server it borrows and the recordings it reads: the hidden tests in the suite's order, each
first asked its recorded calls (``replay.replaying``), its body run where they did not pass it.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path
from typing import Callable

from attnlab.course import Course
from attnlab.grading.backends import Backend, InProcessBackend, SandboxBackend
from attnlab.grading.hidden_suite import hidden_test_files, run_suite
from attnlab.grading.replay.kept import recorded_run
from attnlab.grading.replay.replaying import Replay
from attnlab.grading.replay.script import Script, ScriptedTest
from attnlab.lifecycle import scratch_prefix
from attnlab.points import load_table, pay_for_values
from attnlab.reference import Reference, one_blas_thread
from attnlab.results import GradeReport, TestResult
from attnlab.intake.roster import Entry, SubmissionError, shown, stage_submission
from attnlab.sandbox.host import ForkServer, Limits
from attnlab.sandbox.standins import AnswerCache


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
    script: Script | None = None,
    backend: Backend | None = None,
) -> GradeReport:
    """Run the hidden tests of ``only`` these exercise files (default: all) against ``submission``.

    ``backend``: how the submission's functions are called (default: a ``SandboxBackend`` with
    ``limits``, ``fork_server`` and ``answer_cache``, or with ``in_process`` an
    ``InProcessBackend``); it is closed when the grading ends. A sandboxed submission's tests are
    first asked the reference's recorded calls: ``script`` (default: ``kept.recorded_run`` of
    the files graded, from the user's cache).
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
            course,
            submission,
            reference,
            limits=limits,
            fork_server=fork_server,
            answer_cache=answer_cache,
            modules=[f.stem.removeprefix("test_") for f in test_files],
        )
    try:
        with one_blas_thread():
            if isinstance(backend, SandboxBackend):
                modules = [f.stem.removeprefix("test_") for f in test_files]
                script = script or recorded_run(course, reference, modules)
                results = _graded_in_order(course, test_files, backend, reference, script)
            else:
                plugin = run_suite(course, test_files, backend, reference)
                results = list(zip(plugin.nodeids, plugin.results))
    finally:
        backend.close()
        # Taken even when the failure itself is on its way up (a probe's worker that cannot start):
        # the server's next submission starts clean.
        failure = backend.server.take_failure() if isinstance(backend, SandboxBackend) else None
    if failure is not None:  # what the sandbox's failure decided is not the student's grade
        raise failure
    # A property is paid only with the values it is about.
    paid = pay_for_values(load_table(course.hidden_tests_dir), results)
    tests = [dataclasses.replace(test, test=nodeid) for (nodeid, _), test in zip(results, paid)]
    return GradeReport(
        submission=str(submission), tests=tuple(tests), sandbox=backend.mode, duration=time.perf_counter() - started
    )


def _graded_in_order(
    course: Course, test_files: list[Path], backend: SandboxBackend, reference: Reference, script: Script
) -> list[tuple[str, TestResult]]:
    """Each hidden test of ``test_files`` in the suite's order, first replayed (its recorded
    calls asked through ``backend``), its body run when they did not pass it: (node id, result).

    The tests the replay passes before the first it does not need no pytest session: that test
    and every later one go to one session, which asks each the same way (``run_suite``'s
    ``replay``), so the submission's processes meet the same calls in the same order whether a
    session starts or not."""
    prefixes = tuple(f"{f.name}::" for f in test_files)
    recorded: dict[str, ScriptedTest] = {t.nodeid: t for t in script.tests if t.nodeid.startswith(prefixes)}
    replay = Replay(backend)
    passed: dict[str, TestResult] = {}
    tried: str | None = None
    tried_seconds = 0.0
    for nodeid, test in recorded.items():
        if not replay.decidable(test):
            break
        started = time.perf_counter()
        if not replay.test(test):
            tried, tried_seconds = nodeid, time.perf_counter() - started  # its body runs next, in the session
            break
        duration = round(time.perf_counter() - started, 4)
        passed[nodeid] = dataclasses.replace(test.result, output=backend.take_output(), duration=duration)
    remaining = [n for n in recorded if n not in passed]
    if recorded and not remaining:
        return list(passed.items())

    def replayed(nodeid: str) -> bool:
        test = recorded.get(nodeid)
        return test is not None and nodeid != tried and replay.test(test)

    # From the file of the first test left on: collecting a hidden test file costs more than most tests.
    names = [f.name for f in test_files]
    first = remaining[0].split("::")[0] if remaining else None
    left = test_files[names.index(first) :] if first in names else test_files
    plugin = run_suite(course, left, backend, reference, decided=frozenset(passed), replay=replayed)
    run = [
        (n, dataclasses.replace(r, duration=round(r.duration + tried_seconds, 4)) if n == tried else r)
        for n, r in zip(plugin.nodeids, plugin.results)
    ]
    return [*passed.items(), *run]


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
