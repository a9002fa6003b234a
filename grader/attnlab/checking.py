"""``attnlab check``: run the public tests on a student's folder, summarised per function.

The public tests are plain pytest files in ``exercises/tests/`` that students
can also run with ``pytest``. Here they run in this process (it is the
student's own code on the student's own machine; grading is what sandboxes),
and each function gets one line: passed, failed with the first useful
message, not implemented yet, or waiting for another function.
"""

from __future__ import annotations

import contextlib
import io
import os
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

from attnlab.course import Course, CourseError

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


def _classify(function: str, excinfo, folder: Path) -> tuple[str, str]:
    error = excinfo.value
    frame = _student_frame(excinfo, folder)
    where = f" ({Path(frame.filename).name}:{frame.lineno}: {frame.line})" if frame else ""
    if isinstance(error, NotImplementedError):
        if frame is not None and frame.name != function:
            return "waiting", f"needs {frame.name} (in {Path(frame.filename).name}) first: it is not implemented yet"
        return "not implemented", "not implemented yet"
    if isinstance(error, AssertionError):
        first = next((line for line in str(error).splitlines() if line.strip()), "assertion failed")
        return "failed", first
    return "failed", f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}{where}"


class CheckPlugin:
    def __init__(self, folder: Path):
        self.folder = folder
        self.outcomes: list[tuple[str, str, str]] = []  # function, status, message

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        if report.when == "call" or (report.when == "setup" and report.failed):
            doc = (getattr(item.function, "__doc__", None) or item.name).strip()
            function = doc.split(":", 1)[0].strip()
            if report.passed:
                self.outcomes.append((function, "passed", ""))
            else:
                self.outcomes.append((function, *_classify(function, call.excinfo, self.folder)))
        return report


def run_check(course: Course, folder: Path) -> list[FunctionCheck]:
    """Run the public tests against ``folder`` and summarise them per function, in course order."""
    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise CourseError(f"{folder}: no such folder")
    if not course.public_tests_dir.is_dir():
        raise CourseError(f"{course.public_tests_dir} is missing: the course has no public tests")
    plugin = CheckPlugin(folder)
    args = [str(course.public_tests_dir), "-c", str(PYTEST_INI), "--rootdir", str(course.exercises_dir), "-p", "no:terminal", "-p", "no:cacheprovider"]
    previous = os.environ.get(SUBMISSION_VARIABLE)
    os.environ[SUBMISSION_VARIABLE] = str(folder)
    try:
        captured = io.StringIO()
        with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
            exit_code = pytest.main(args, plugins=[plugin])
    finally:
        if previous is None:
            os.environ.pop(SUBMISSION_VARIABLE, None)
        else:
            os.environ[SUBMISSION_VARIABLE] = previous
    if exit_code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        lines = [line for line in captured.getvalue().splitlines() if line.strip()]
        raise CourseError(f"the public tests could not run: {lines[-1] if lines else f'pytest exit code {exit_code}'}")
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
