"""``attnlab check``: run the public tests on a student's folder, summarised per function.

The public tests are plain pytest files in ``exercises/tests/`` that students
can also run with ``pytest``, among them the course's diagnostic probes
(``probe_book``). Here they run in this process (it is the student's own code
on the student's own machine; grading is what sandboxes), and each function
gets one line: passed, failed with the first useful message (or the known
mistake its probes show, or the function it calls that fails first), not
implemented yet, or waiting for another function; below it, what pytest would
show: the assertion's own message, the failing call, what the code printed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from attnlab.check.course_imports import held_to_the_course
from attnlab.check.deadline import ImportTookTooLong, TestDeadline, TestTookTooLong, function_of
from attnlab.check.probe_book import BOOK_NAME, ProbeBook, describe
from attnlab.check.recorder import CallRecorder
from attnlab.course import Course, CourseError
from attnlab.misconceptions import RecordedCall
from attnlab.pytest_runs import COMPLETED, first_error_line, run_captured
from attnlab.sandbox.inside.unreadable import unreadable_line

PYTEST_INI = Path(__file__).with_name("public_tests.ini")
SUBMISSION_VARIABLE = "ATTNLAB_SUBMISSION"
# How a student installs a library a track needs; a plain ``pip install`` of torch on Linux fetches
# a CUDA build of several GB, where the CPU build is enough.
INSTALL = {
    "torch": "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu (the CPU build is enough)"
}


# What a failing test shows below its line: as pytest shows it, cut to what a terminal can hold.
MAX_DETAIL_LINES, MAX_DETAIL_CHARS, MAX_OUTPUT_CHARS = 12, 160, 1500


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
    details: tuple[str, ...] = ()
    """Below the message: the rest of the assertion's message, the failing call, what was printed."""


@dataclass
class TestOutcome:
    """One public test of one function, as the check saw it."""

    __test__ = False
    function: str
    status: str
    message: str
    details: list[str] = field(default_factory=list)
    called: set[str] = field(default_factory=set)
    """The other contract functions the test's calls ran, the student's own."""
    timed_out: bool = False


def _in_folder(filename: str, folder: Path) -> bool:
    """Whether a traceback's file is one of the student's (``<frozen importlib._bootstrap>`` is not,
    even when the check runs from the student's folder)."""
    path = Path(filename)
    return path.is_absolute() and path.resolve().parent == folder


def _student_frame(tb, folder: Path):
    """The innermost frame of traceback ``tb`` inside the student's folder, if any."""
    frames = [f for f in traceback.extract_tb(tb) if _in_folder(f.filename, folder)]
    return frames[-1] if frames else None


def _classify(function: str, excinfo, folder: Path, contract: set[str] = frozenset()) -> tuple[str, str]:
    error = excinfo.value
    frame = _student_frame(excinfo.tb, folder)
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


def trimmed(lines, limit: int = MAX_DETAIL_LINES) -> list[str]:
    """Lines as a terminal shows them: each cut at ``MAX_DETAIL_CHARS``, at most ``limit`` of them."""
    kept = [
        line if len(line) <= MAX_DETAIL_CHARS else line[: MAX_DETAIL_CHARS - 1] + "…" for line in lines if line.strip()
    ]
    return kept[:limit] + ([f"[… {len(kept) - limit} more lines]"] if len(kept) > limit else [])


def assertion_details(error: BaseException) -> list[str]:
    """What an assertion said after its first line: numpy's mismatched cells and values, pytest's
    ``+ where`` lines of a bare assert; the first line of another error's traceback in the student's code."""
    if isinstance(error, AssertionError):
        lines = [line for line in str(error).splitlines() if line.strip()]
        return trimmed(lines[1:])
    return []


@dataclass(frozen=True)
class CheckResult:
    """What ``attnlab check`` found: one line per function, and what stopped files being checked."""

    functions: list[FunctionCheck]
    problems: list[str]
    """A file that cannot be imported, one line each: where, why, and what to do."""
    left_out: list[str]
    """Files not checked because a library they need is not installed, one line each."""


@dataclass(frozen=True)
class ImportProblem:
    """Why a public test file could not be imported: the student's file and line at fault."""

    file: str
    """The student's file that failed (``attention.py``), or the test file when none of theirs did."""
    line: str
    """One line for the student: where, why, and what to do."""


def missing_libraries(course: Course, module: str) -> list[str]:
    """The libraries ``module`` needs (``[course.needs]``) that are not installed here."""
    return [library for library in course.needs_of(module) if importlib.util.find_spec(library) is None]


def install_hint(library: str) -> str:
    """The command that installs ``library`` for a student."""
    return INSTALL.get(library, f"pip install {library}")


def explain_import_failure(course: Course, error: BaseException, folder: Path, test_file: str) -> ImportProblem:
    """Name the student's file and line where importing failed, the reason, and what to do."""
    if isinstance(error, (ImportTookTooLong, TestTookTooLong)) and str(error).split(",", 1)[0].endswith(".py"):
        return ImportProblem(str(error).split(",", 1)[0], f"{error}.")  # a loop at the top of a file: its own words
    if isinstance(error, SyntaxError) and error.filename and _in_folder(error.filename, folder):
        return ImportProblem(Path(error.filename).name, unreadable_line(error))  # the grader's line, word for word
    frame = _student_frame(error.__traceback__, folder)
    if frame is None:
        return ImportProblem(
            test_file, f"{test_file} could not be imported: {type(error).__name__}: {_first_line(error)}"
        )
    name = Path(frame.filename).name
    where = f"{name}, line {frame.lineno} ({frame.line})" if frame.line else f"{name}, line {frame.lineno}"
    if isinstance(error, ModuleNotFoundError) and error.name:
        library = error.name.split(".")[0]
        if library in course.modules:
            return ImportProblem(
                name,
                f"{where}: there is no {library}.py in {folder}. Put it back: a file may import the course's files before it.",
            )
        if str(error).startswith(f"`{library}` is not available to "):
            return ImportProblem(name, f"{where}: {error}. Remove this import: the grader will not import it.")
        if any(library in course.needs_of(m) for m in course.modules):
            return ImportProblem(name, f"{where}: {library} is not installed. {install_hint(library)}")
        return ImportProblem(
            name,
            f"{where}: there is no module named {library} here. Remove this import: the exercises do not need it, and the grader may not have it.",
        )
    if isinstance(error, ImportError):
        return ImportProblem(
            name, f"{where}: {_first_line(error)}. Check the name: it must be one the imported file defines."
        )
    return ImportProblem(
        name,
        f"{where}: {type(error).__name__}: {_first_line(error)}, while the file was imported. Code at the top of a file runs on import: fix it, or move it into a function.",
    )


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


class CheckPlugin:
    def __init__(self, folder: Path, recorder: CallRecorder, contract: set[str] = frozenset()):
        self.folder, self.recorder, self.contract = folder, recorder, contract
        self.outcomes: list[TestOutcome] = []
        self.unimportable: dict[str, BaseException] = {}  # test file -> why it could not be imported

    def pytest_exception_interact(self, node, call, report) -> None:
        if report.when == "collect" and call.excinfo is not None:
            error = call.excinfo.value
            # pytest wraps an ImportError or a SyntaxError in its own CollectError; the student's is its cause.
            if isinstance(error, pytest.Collector.CollectError) and error.__cause__ is not None:
                error = error.__cause__
            self.unimportable[Path(str(node.path)).name] = error

    def pytest_sessionstart(self, session) -> None:
        self.recorder.instrument()

    def pytest_runtest_setup(self, item) -> None:
        self.recorder.calls = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        if report.when == "call" or (report.when == "setup" and report.failed):
            function = function_of(item)
            if report.passed:
                self.outcomes.append(TestOutcome(function, "passed", ""))
            else:
                status, message = _classify(function, call.excinfo, self.folder, self.contract)
                error = call.excinfo.value
                details = assertion_details(error)
                own = [c for c in self.recorder.calls if c.function == function]
                if own and isinstance(error, AssertionError) and not str(error).startswith("on a diagnostic probe"):
                    details.append(f"the call: {call_text(own[-1])}")
                printed = (report.capstdout + report.capstderr).strip()
                if printed:
                    cut = printed if len(printed) <= MAX_OUTPUT_CHARS else printed[:MAX_OUTPUT_CHARS] + "\n[… cut]"
                    details += [
                        "your code printed:",
                        *("  " + line for line in trimmed(cut.splitlines(), MAX_DETAIL_LINES)),
                    ]
                called = {c.function for c in self.recorder.calls} - {function}
                self.outcomes.append(
                    TestOutcome(function, status, message, details, called, isinstance(error, TestTookTooLong))
                )
        return report


def call_text(call: RecordedCall) -> str:
    """A recorded call as a student reads it: ``equivariance_gap(<float64 array of shape (5, 4)>, [1, 2, 3, 4, 0], ...) returned 8.3e-16``."""
    parts = [describe(a) for a in call.args] + [f"{k}={describe(v)}" for k, v in call.kwargs.items()]
    text = f"{call.function}({', '.join(parts)})"
    return f"{text} returned {describe(call.result)}"


def run_check(
    course: Course, folder: Path, only: list[str] | None = None, test_seconds: float | None = 5.0
) -> CheckResult:
    """Run the public tests (of the ``only`` files, default all) against ``folder`` and summarise
    them per function, in course order; a test past ``test_seconds`` fails. A file that cannot be
    imported is named with its line and reason, and every other file is still checked."""
    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise CourseError(f"{folder}: no such folder")
    if not course.public_tests_dir.is_dir():
        raise CourseError(f"{course.public_tests_dir} is missing: the course has no public tests")
    modules = only or list(course.modules)
    missing = {m: missing_libraries(course, m) for m in modules}
    left_out = [
        f"{m}.py not checked: it needs {', '.join(missing[m])}, which is not installed. {install_hint(missing[m][0])}"
        for m in modules
        if missing[m]
    ]
    if only and all(missing[m] for m in modules):
        raise CourseError(left_out[0] if len(left_out) == 1 else "; ".join(left_out))
    modules = [m for m in modules if not missing[m]]
    book = ProbeBook.load(course.public_tests_dir / BOOK_NAME)
    deadline_plugin = TestDeadline(test_seconds or 0, folder)
    recorder = CallRecorder(course, folder, modules, probe_seconds=test_seconds or 0, hung=deadline_plugin.hung)
    plugin = CheckPlugin(folder, recorder, {f.name for f in course.functions})
    tests = [course.public_tests_dir / f"test_{m}.py" for m in modules]
    tests = [str(t) for t in tests if t.is_file()]
    if not tests:
        raise CourseError(f"no public tests for {', '.join(modules)}")
    # A file that cannot be imported stops its own tests only, not every other file's.
    args = [
        *tests,
        "-c",
        str(PYTEST_INI),
        "--rootdir",
        str(course.exercises_dir),
        "--continue-on-collection-errors",
        "-p",
        "no:terminal",
        "-p",
        "no:cacheprovider",
    ]
    previous = os.environ.get(SUBMISSION_VARIABLE)
    os.environ[SUBMISSION_VARIABLE] = str(folder)
    try:
        with held_to_the_course(course, folder):
            exit_code, output = run_captured(args, [plugin, deadline_plugin])
            if exit_code in COMPLETED:
                # The probes it may run print as the tests did: into the void, not the summary.
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    verdicts = _summarise(course, modules, plugin.outcomes, recorder, book)
    finally:
        if previous is None:
            os.environ.pop(SUBMISSION_VARIABLE, None)
        else:
            os.environ[SUBMISSION_VARIABLE] = previous
        recorder.forget_hung()
    if exit_code not in COMPLETED:
        raise CourseError(f"the public tests could not run: {first_error_line(output, exit_code)}")
    problems = {
        test_file: explain_import_failure(course, error, folder, test_file)
        for test_file, error in plugin.unimportable.items()
    }
    for module in modules:
        problem = problems.get(f"test_{module}.py")
        if problem is None:
            continue
        own = problem.file == f"{module}.py"
        for function in course.functions_in(module):
            if own:
                verdicts.append(
                    FunctionCheck(function, "failed", 0, 1, f"not checked: {problem.file} cannot be imported (above)")
                )
            else:
                verdicts.append(
                    FunctionCheck(function, "waiting", 0, 1, f"needs {problem.file}, which cannot be imported (above)")
                )
    order = {f.name: i for i, f in enumerate(course.functions)}
    lines = list(dict.fromkeys(p.line for p in problems.values()))
    return CheckResult(sorted(verdicts, key=lambda c: order[c.function]), lines, left_out)


def _summarise(
    course: Course, modules: list[str], outcomes: list[TestOutcome], recorder: CallRecorder, book: ProbeBook | None
) -> list[FunctionCheck]:
    """One verdict per function that ran tests. A failing function that calls another that fails
    (its own tests, or its probes when its file was not checked) says so, as the one to fix first;
    otherwise its probes may name a known mistake."""
    order = ("not implemented", "waiting", "failed")
    verdicts: dict[str, FunctionCheck] = {}
    for function in (f.name for f in course.functions):
        mine = [o for o in outcomes if o.function == function]
        if not mine:
            continue
        passed = sum(o.status == "passed" for o in mine)
        problems = [o for o in mine if o.status != "passed"]
        if not problems:
            verdicts[function] = FunctionCheck(function, "passed", passed, len(mine), "")
            continue
        worst = min(problems, key=lambda o: order.index(o.status))
        verdicts[function] = FunctionCheck(
            function, worst.status, passed, len(mine), worst.message, tuple(worst.details)
        )
    wrong = {f for f, v in verdicts.items() if v.status != "passed"}
    for function, verdict in list(verdicts.items()):
        if verdict.status != "failed":
            continue
        failing = [o for o in outcomes if o.function == function and o.status == "failed"]
        if any(o.timed_out for o in failing):
            continue  # its probes would wait as long again
        called = set().union(*(o.called for o in failing))
        culprit = next(
            (
                f.name
                for f in course.functions
                if f.name in called and _is_wrong(f.name, wrong, verdicts, recorder, book)
            ),
            None,
        )
        if culprit is not None:
            where = (
                ""
                if course.function(culprit).module == course.function(function).module
                else f" (in {course.function(culprit).module}.py)"
            )
            message = f"fails because {culprit}{where}, which it calls, does: fix that first"
            verdicts[function] = FunctionCheck(
                function, "failed", verdict.passed, verdict.total, message, (verdict.message, *verdict.details)
            )
            continue
        mistake = recorder.name(function, book)
        if mistake is not None:
            message = f"known mistake: {mistake.name}. Hint: {mistake.hint}"
            said = [
                line
                for line in (verdict.message, *verdict.details)
                if not line.startswith(("This looks like a known mistake:", "Hint: "))
            ]
            verdicts[function] = FunctionCheck(function, "failed", verdict.passed, verdict.total, message, tuple(said))
    return list(verdicts.values())


def _is_wrong(
    function: str, wrong: set[str], verdicts: dict[str, FunctionCheck], recorder: CallRecorder, book: ProbeBook | None
) -> bool:
    """Does the student's ``function`` fail: its own public tests, or, where its file was not
    checked, the course's probes?"""
    if function in verdicts:
        return function in wrong
    return recorder.fails_its_probes(function, book)
