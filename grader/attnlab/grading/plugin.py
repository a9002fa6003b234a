"""The pytest plugin that turns hidden tests into graded results.

Hidden tests are ordinary pytest functions in the trusted process. They get
two session fixtures, ``student`` (the submission, reached through a backend)
and ``reference`` (the reference solutions), and a docstring whose first line
names the function and the property: ``softmax: rows sum to 1 along the axis``.
This plugin gives each test its points from ``points.toml`` and records how it
ended, as an ``Outcome`` with feedback a student can act on.
"""

from __future__ import annotations

import collections
import dataclasses
import time
from typing import Callable

import pytest

from attnlab.course import Course
from attnlab.grading.student import StudentProxy
from attnlab.misconceptions import Catalogue, Misconception, identify, probes_of, run_probes
from attnlab.outcomes import GraderFailure, Outcome, StudentError, SubmissionProblem
from attnlab.points import load_table
from attnlab.reference import Reference
from attnlab.results import TestResult, named_feedback

MAX_FEEDBACK_CHARS = 4000


def _feedback(error: BaseException, last_call: str | None) -> tuple[Outcome, str]:
    """The outcome a test's exception stands for, and what to tell the student."""
    if isinstance(error, BaseExceptionGroup) and error.exceptions:  # hypothesis' flaky failures
        inner_outcome, inner = _feedback(error.exceptions[0], last_call)
        return inner_outcome, "Your function gave different results on the same input.\n" + inner
    if isinstance(error, SubmissionProblem):
        return error.outcome, error.message
    outcome = Outcome.ERROR if isinstance(error, StudentError) else Outcome.FAILED
    message = error.message if isinstance(error, StudentError) else str(error) or type(error).__name__
    if not isinstance(error, (AssertionError, StudentError)):
        message = f"{type(error).__name__}: {message}"
    notes = [n for n in getattr(error, "__notes__", []) if "student=" not in n and "reference=" not in n]
    if last_call:
        message += f"\n\nThe failing call: {last_call}"
    if notes:
        message += "\n" + "\n".join(notes)
    if len(message) > MAX_FEEDBACK_CHARS:
        message = message[:MAX_FEEDBACK_CHARS] + "\n[... cut]"
    return outcome, message


def _is_grader_failure(error: BaseException) -> bool:
    """Did the sandbox fail, not the student (hypothesis may wrap it in a group)?"""
    if isinstance(error, BaseExceptionGroup):
        return error.subgroup(GraderFailure) is not None
    return isinstance(error, GraderFailure)


def _named_feedback(mistake: Misconception, feedback: str) -> str:
    return named_feedback(mistake.name, mistake.explanation, mistake.hint, feedback)


class GradingProfile:
    """Hypothesis's settings for grading, for the length of a pytest session.

    They must be in force when a hidden test module is imported, not only when its tests run:
    ``@given`` keeps the settings that are the default at the moment it decorates a test. A
    module imported outside such a session would run every test of it with hypothesis's own
    defaults (100 examples, not 20), in every later session that reuses it."""

    def pytest_configure(self, config) -> None:
        # Grading is deterministic: the same submission always meets the same examples.
        from hypothesis import HealthCheck, Phase, settings

        settings.register_profile(
            "attnlab-grading",
            derandomize=True,
            database=None,
            deadline=None,
            max_examples=20,
            print_blob=False,
            suppress_health_check=list(HealthCheck),
            # Shrinking is kept (a failure shrinks to an example a student can read); the explain
            # phase is not: it re-runs a failing test many times to say what a student is not shown.
            phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
            # One failure per test is what a student is shown. Looking on for other, distinct ones
            # cost about ten examples more per failing test; and when two were found they came back
            # as a group, which read as a flaky test ("different results on the same input").
            report_multiple_bugs=False,
        )
        settings.load_profile("attnlab-grading")

    def pytest_unconfigure(self, config) -> None:
        from hypothesis import settings

        settings.load_profile("default")


class GradingPlugin(GradingProfile):
    """Registered with ``pytest.main(plugins=[...])`` for one submission."""

    def __init__(
        self,
        course: Course,
        reference: Reference,
        student: StudentProxy,
        points: dict[tuple[str, str], float],
        take_output,
        catalogue: Catalogue | None = None,
        decided: frozenset[str] = frozenset(),
        replay: Callable[[str], bool] | None = None,
    ):
        self.course, self.points = course, points
        self._replay = replay
        """Given a test's node id, asks its recorded calls and says whether they passed it."""
        self.catalogue = catalogue if catalogue is not None else Catalogue()
        self._reference, self._student, self._take_output = reference, student, take_output
        self._decided = decided  # node ids graded before the live run: collected, then not run
        self.results: list[TestResult] = []
        self.nodeids: list[str] = []
        """The node id of each result, in the same order."""
        self.internal_errors: list[str] = []
        self.course_error: str | None = None
        """What is wrong with the course's hidden tests, in one line for its author (None: nothing)."""
        self.item_points: dict[str, float] = {}
        self._failed: dict[str, list[tuple[int, list]]] = {}  # function -> (result index, the test's calls), to name

    @pytest.fixture(scope="session")
    def student(self) -> StudentProxy:
        return self._student

    @pytest.fixture(scope="session")
    def reference(self) -> Reference:
        return self._reference

    def pytest_collection_modifyitems(self, config, items) -> None:
        cases = collections.Counter((item.path.stem, item.originalname) for item in items)
        functions: dict[tuple[str, str], str] = {}
        for item in items:
            key = (item.path.stem, item.originalname)
            if key not in self.points:
                self._stop_for(
                    f"hidden test {key[0]}.{key[1]} has no points: add `{key[1]} = POINTS` under [{key[0]}] in {self.course.hidden_tests_dir / 'points.toml'}"
                )
            self.item_points[item.nodeid] = self.points[key] / cases[key]
            name = self.display_name(item)
            function = name.split(":", 1)[0].strip()
            if ":" not in name or function not in {f.name for f in self.course.functions}:
                self._stop_for(
                    f"hidden test {key[0]}.{key[1]}: its docstring must start with 'function: property' naming a function of the course, e.g. \"{self._example_function(key[0])}: rows sum to 1\" (got {name!r})"
                )
            functions[key] = function
        self._check_payers(functions)
        if self._decided:
            skipped = [item for item in items if item.nodeid in self._decided]
            items[:] = [item for item in items if item.nodeid not in self._decided]
            config.hook.pytest_deselected(items=skipped)

    def _check_payers(self, functions: dict[tuple[str, str], str]) -> None:
        """A property test is paid with values tests of its own function (``points.pay_for_values``)."""
        for (file_stem, test), payers in load_table(self.course.hidden_tests_dir).paid_with.items():
            for payer in payers:
                if (
                    (file_stem, test) in functions
                    and (file_stem, payer) in functions
                    and functions[(file_stem, payer)] != functions[(file_stem, test)]
                ):
                    self._stop_for(
                        f"hidden test {file_stem}.{test} tests {functions[(file_stem, test)]} but is paid with {payer}, a test of {functions[(file_stem, payer)]}: a property is paid with the values of its own function"
                    )

    def _stop_for(self, problem: str) -> None:
        """Stop the session for a problem of the course itself: pytest says it in one line
        (a usage error, not an internal error's traceback) and ``course_error`` keeps it."""
        self.course_error = problem
        raise pytest.UsageError(problem)

    def _example_function(self, test_file: str) -> str:
        functions = (
            self.course.functions_in(test_file.removeprefix("test_"))
            if test_file.removeprefix("test_") in self.course.modules
            else []
        )
        return (functions or [f.name for f in self.course.functions] or ["function"])[0]

    @staticmethod
    def display_name(item) -> str:
        doc = (getattr(item.function, "__doc__", None) or "").strip()
        name = doc.splitlines()[0] if doc else item.name
        if getattr(item, "callspec", None) is not None:
            name += f" [{item.callspec.id}]"
        return name

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        if report.when == "setup" and report.failed:
            self.internal_errors.append(f"{item.nodeid}: {call.excinfo.value!r}" if call.excinfo else item.nodeid)
        elif report.when == "call":
            self._record(item, call, report)
            if call.excinfo is not None and _is_grader_failure(call.excinfo.value):
                # No grade is made of this run (``grade`` raises the failure): the other tests would
                # only meet it again.
                item.session.shouldstop = str(call.excinfo.value)
        return report

    def pytest_sessionfinish(self, session) -> None:
        """Name each failing function's mistake, once every test has run (so probing it cannot
        change a verdict): one entry must reproduce the student on the function's diagnostic
        probes and on every call of all its failing tests together, so a submission is never
        told two stories about one bug, nor a story a tiny example happened to fit."""
        for function, failed in self._failed.items():
            if not any(m.function == function for m in self.catalogue):
                continue
            probed = (
                run_probes(function, self._student.probe, self.catalogue) if probes_of(function, self.catalogue) else []
            )
            if probed is None:
                continue
            mistake = identify(
                self.catalogue, function, [c for _, calls in failed for c in calls], self._reference, probed
            )
            if mistake is None:
                continue
            for index, _ in failed:
                result = self.results[index]
                self.results[index] = dataclasses.replace(
                    result, misconception=mistake.id, feedback=_named_feedback(mistake, result.feedback)
                )

    def pytest_runtest_setup(self, item) -> None:
        self._student.start_test()
        self._started = time.perf_counter()

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        """A test with a recorded run is first asked the reference run's calls: when every answer
        is the reference's, it passed (its body would make exactly those calls) and does not run."""
        if self._replay is not None and self._replay(pyfuncitem.nodeid):
            return True
        return None

    def _record(self, item, call, report) -> None:
        points = self.item_points[item.nodeid]
        name = self.display_name(item)
        function = name.split(":", 1)[0].strip()
        if report.passed:
            outcome, feedback = Outcome.PASSED, ""
        else:
            outcome, feedback = _feedback(call.excinfo.value, self._student.last_call)
            if outcome is Outcome.FAILED or isinstance(call.excinfo.value, StudentError):
                self._failed.setdefault(function, []).append((len(self.results), list(self._student.calls)))
        self.nodeids.append(item.nodeid)
        self.results.append(
            TestResult(
                name=name,
                function=function,
                module=self.course.function(function).module,
                outcome=outcome,
                score=points if outcome is Outcome.PASSED else 0.0,
                max_score=points,
                feedback=feedback,
                misconception=None,  # named at the session's end, from every failing test of the function
                picture=getattr(call.excinfo.value, "picture", None) if call.excinfo else None,
                output=self._take_output(),
                duration=round(time.perf_counter() - self._started, 4),
            )
        )
