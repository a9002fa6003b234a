"""``attnlab check``: run the public tests on a student's folder, summarised per function.

The public tests are plain pytest files in ``exercises/tests/`` that students
can also run with ``pytest``. Here they run in this process (it is the
student's own code on the student's own machine; grading is what sandboxes),
and each function gets one line: passed, failed with the first useful
message, not implemented yet, or waiting for another function.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

from attnlab.check.deadline import TestDeadline, TestTookTooLong, function_of
from attnlab.course import Course, CourseError
from attnlab.misconceptions import RecordedCall, identify, load_catalogue
from attnlab.pytest_runs import COMPLETED, first_error_line, run_captured
from attnlab.reference import Reference, reference_names
from attnlab.wire import WireError, copy_plain

PYTEST_INI = Path(__file__).with_name("public_tests.ini")
SUBMISSION_VARIABLE = "ATTNLAB_SUBMISSION"


@dataclass(frozen=True)
class FunctionCheck:
    """How one function fared on the public tests."""

    function: str
    status: str
    """``passed``, ``failed``, ``not implemented`` or ``waiting`` (on another function)."""
    passed: int
    total: int
    message: str
    """The first useful message of the first failing test; empty when all passed."""


def _student_frame(excinfo, folder: Path):
    """The innermost traceback frame inside the student's folder, if any."""
    frames = [f for f in traceback.extract_tb(excinfo.tb) if Path(f.filename).resolve().parent == folder]
    return frames[-1] if frames else None


def _classify(function: str, excinfo, folder: Path, contract: set[str] = frozenset()) -> tuple[str, str]:
    error = excinfo.value
    frame = _student_frame(excinfo, folder)
    where = f" ({Path(frame.filename).name}:{frame.lineno}: {frame.line})" if frame else ""
    if isinstance(error, NotImplementedError):
        # Waiting on another contract function; a class's own methods (__init__, forward) are its own.
        if frame is not None and frame.name != function and frame.name in contract:
            return "waiting", f"needs {frame.name} (in {Path(frame.filename).name}) first: it is not implemented yet"
        return "not implemented", "not implemented yet"
    if isinstance(error, TestTookTooLong):
        return "failed", f"{error}{where}"
    if isinstance(error, AssertionError):
        first = next((line for line in str(error).splitlines() if line.strip()), "assertion failed")
        return "failed", first
    return "failed", f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}{where}"


class CallRecorder:
    """Records every call of the student's contract functions (arguments and result, as plain data).

    The student's files are imported and their functions wrapped before the public
    tests import them, so ``from softmax import softmax`` in a test gets the wrapper.
    """

    def __init__(self, course: Course, folder: Path, modules: list[str] | None = None):
        self.course, self.folder = course, folder
        self.modules = modules or list(course.modules)
        self.calls: list[RecordedCall] = []

    def instrument(self) -> None:
        if str(self.folder) not in sys.path:
            sys.path.insert(0, str(self.folder))
        for module in self.modules:  # only those checked: importing torch_attention imports torch
            if not (self.folder / f"{module}.py").is_file():
                continue
            try:
                loaded = importlib.import_module(module)
            except BaseException:  # noqa: BLE001 - the public tests report the student's import error themselves
                continue
            for name in self.course.functions_in(module):
                function = getattr(loaded, name, None)
                if callable(function) and not isinstance(function, type):  # classes stay classes
                    setattr(loaded, name, self._recording(name, function))

    def _recording(self, name: str, function):
        @functools.wraps(function)
        def recorded(*args, **kwargs):
            try:
                inputs = copy_plain((args, kwargs))
            except WireError:
                inputs = None
            result = function(*args, **kwargs)
            if inputs is not None:
                try:
                    self.calls.append(RecordedCall(name, inputs[0], inputs[1], copy_plain(result)))
                except WireError:
                    pass
            return result

        return recorded


class MistakeNamer:
    """The misconception catalogue and the reference, loaded at a failure (a passing check never pays)."""

    def __init__(self, course: Course):
        self.course = course
        self._loaded = None
        self._catalogues: dict[str, list] = {}  # by exercise file

    def name(self, function: str, calls: list[RecordedCall]):
        # Only the failing function's file's entries and reference: a numpy failure never imports torch.
        module = self.course.function(function).module
        if module not in self._catalogues:
            with reference_names(self.course):
                if self._loaded is None:
                    self._loaded = Reference(self.course)
                self._catalogues[module] = load_catalogue(self.course, [module])
                self._loaded.preload(self.course.functions_in(module))
        return identify(self._catalogues[module], function, calls, self._loaded)


class CheckPlugin:
    def __init__(self, folder: Path, recorder: CallRecorder | None = None, namer: MistakeNamer | None = None, contract: set[str] = frozenset()):
        self.folder, self.recorder, self.namer, self.contract = folder, recorder, namer, contract
        self.outcomes: list[tuple[str, str, str]] = []  # function, status, message

    def pytest_sessionstart(self, session) -> None:
        if self.recorder is not None:
            self.recorder.instrument()

    def pytest_runtest_setup(self, item) -> None:
        if self.recorder is not None:
            self.recorder.calls = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        if report.when == "call" or (report.when == "setup" and report.failed):
            function = function_of(item)
            if report.passed:
                self.outcomes.append((function, "passed", ""))
            else:
                status, message = _classify(function, call.excinfo, self.folder, self.contract)
                mistake = self.namer.name(function, self.recorder.calls) if status == "failed" and self.namer else None
                if mistake is not None:
                    message = f"known mistake: {mistake.name}. Hint: {mistake.hint}"
                self.outcomes.append((function, status, message))
        return report


def run_check(course: Course, folder: Path, only: list[str] | None = None, test_seconds: float | None = 5.0) -> list[FunctionCheck]:
    """Run the public tests (of the ``only`` files, default all) against ``folder`` and summarise
    them per function, in course order; a test past ``test_seconds`` fails."""
    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise CourseError(f"{folder}: no such folder")
    if not course.public_tests_dir.is_dir():
        raise CourseError(f"{course.public_tests_dir} is missing: the course has no public tests")
    # The catalogue is the instructor's: where the course has it (not in a student release), name mistakes.
    namer = MistakeNamer(course) if (course.solutions_dir / "misconceptions").is_dir() else None
    modules = only or list(course.modules)
    plugin = CheckPlugin(folder, CallRecorder(course, folder, modules) if namer else None, namer, {f.name for f in course.functions})
    tests = [course.public_tests_dir / f"test_{m}.py" for m in modules]
    tests = [str(t) for t in tests if t.is_file()] if only else [str(course.public_tests_dir)]
    if not tests:
        raise CourseError(f"no public tests for {', '.join(modules)}")
    args = [*tests, "-c", str(PYTEST_INI), "--rootdir", str(course.exercises_dir), "-p", "no:terminal", "-p", "no:cacheprovider"]
    previous = os.environ.get(SUBMISSION_VARIABLE)
    os.environ[SUBMISSION_VARIABLE] = str(folder)
    try:
        exit_code, output = run_captured(args, [plugin, TestDeadline(test_seconds or 0)])
    finally:
        if previous is None:
            os.environ.pop(SUBMISSION_VARIABLE, None)
        else:
            os.environ[SUBMISSION_VARIABLE] = previous
    if exit_code not in COMPLETED:
        raise CourseError(f"the public tests could not run: {first_error_line(output, exit_code)}")
    return _summarise(course, plugin.outcomes)


def _summarise(course: Course, outcomes: list[tuple[str, str, str]]) -> list[FunctionCheck]:
    checks = []
    for function in (f.name for f in course.functions):
        mine = [o for o in outcomes if o[0] == function]
        if not mine:
            continue
        passed = sum(status == "passed" for _, status, _ in mine)
        problems = [(status, message) for _, status, message in mine if status != "passed"]
        order = ("not implemented", "waiting", "failed")
        status, message = min(problems, key=lambda p: order.index(p[0])) if problems else ("passed", "")
        checks.append(FunctionCheck(function, status, passed, len(mine), message))
    return checks
