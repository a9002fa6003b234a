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
import importlib.util
import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

from attnlab.check.course_imports import held_to_the_course
from attnlab.check.deadline import TestDeadline, TestTookTooLong, deadline, function_of
from attnlab.course import Course, CourseError
from attnlab.misconceptions import Raised, RecordedCall, identify, load_catalogue, probes_of, run_probes
from attnlab.sandbox.inside.module_harness import as_called
from attnlab.pytest_runs import COMPLETED, first_error_line, run_captured
from attnlab.reference import Reference, reference_names
from attnlab.wire import WireError, copy_plain

PYTEST_INI = Path(__file__).with_name("public_tests.ini")
SUBMISSION_VARIABLE = "ATTNLAB_SUBMISSION"
# How a student installs a library a track needs; a plain ``pip install`` of torch on Linux fetches
# a CUDA build of several GB, where the CPU build is enough.
INSTALL = {"torch": "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu (the CPU build is enough)"}


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
    if isinstance(error, SyntaxError) and error.filename and _in_folder(error.filename, folder):
        name = Path(error.filename).name
        code = (error.text or "").strip()
        shown = f" ({code})" if code else ""
        return ImportProblem(name, f"{name}, line {error.lineno}{shown}: {error.msg}. Python cannot read this file: fix that line (or the one before it).")
    frame = _student_frame(error.__traceback__, folder)
    if frame is None:
        return ImportProblem(test_file, f"{test_file} could not be imported: {type(error).__name__}: {_first_line(error)}")
    name = Path(frame.filename).name
    where = f"{name}, line {frame.lineno} ({frame.line})" if frame.line else f"{name}, line {frame.lineno}"
    if isinstance(error, ModuleNotFoundError) and error.name:
        library = error.name.split(".")[0]
        if library in course.modules:
            return ImportProblem(name, f"{where}: there is no {library}.py in {folder}. Put it back: a file may import the course's files before it.")
        if str(error).startswith(f"`{library}` is not available to "):
            return ImportProblem(name, f"{where}: {error}. Remove this import: the grader will not import it.")
        if any(library in course.needs_of(m) for m in course.modules):
            return ImportProblem(name, f"{where}: {library} is not installed. {install_hint(library)}")
        return ImportProblem(name, f"{where}: there is no module named {library} here. Remove this import: the exercises do not need it, and the grader may not have it.")
    if isinstance(error, ImportError):
        return ImportProblem(name, f"{where}: {_first_line(error)}. Check the name: it must be one the imported file defines.")
    return ImportProblem(name, f"{where}: {type(error).__name__}: {_first_line(error)}, while the file was imported. Code at the top of a file runs on import: fix it, or move it into a function.")


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


class CallRecorder:
    """Records every call of the student's contract functions (arguments and result, as plain data).

    The student's files are imported and their functions wrapped before the public
    tests import them, so ``from softmax import softmax`` in a test gets the wrapper.
    """

    def __init__(self, course: Course, folder: Path, modules: list[str] | None = None, probe_seconds: float = 5.0):
        self.course, self.folder, self.probe_seconds = course, folder, probe_seconds
        self.modules = modules or list(course.modules)
        self.calls: list[RecordedCall] = []
        self.originals: dict = {}
        """The student's own functions and classes, unwrapped, by contract name (for the probes)."""

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
                if callable(function):
                    self.originals[name] = function
                if callable(function) and not isinstance(function, type):  # classes stay classes
                    setattr(loaded, name, self._recording(name, function))

    def probe(self, function: str, args: tuple, kwargs: dict):
        """The student's own result on a diagnostic probe as plain data, or ``Raised``; None if
        it gave nothing comparable (not plain data, or nothing within the test deadline)."""
        try:
            with deadline(self.probe_seconds):
                return copy_plain(as_called(self.originals[function])(*args, **kwargs))
        except (WireError, TestTookTooLong):
            return None
        except Exception as error:  # noqa: BLE001 - what it raised is compared with what entries raise
            return Raised(type(error).__name__)

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

    def name(self, function: str, calls: list[RecordedCall], recorder: CallRecorder):
        # Only the failing function's file's entries and reference: a numpy failure never imports torch.
        module = self.course.function(function).module
        if module not in self._catalogues:
            with reference_names(self.course):
                if self._loaded is None:
                    self._loaded = Reference(self.course)
                self._catalogues[module] = load_catalogue(self.course, [module])
                self._loaded.preload(self.course.functions_in(module))
        if function not in recorder.originals or not any(m.function == function for m in self._catalogues[module]):
            return None
        probed = run_probes(function, recorder.probe) if probes_of(function) else []
        return identify(self._catalogues[module], function, calls, self._loaded, probed)


class CheckPlugin:
    def __init__(self, folder: Path, recorder: CallRecorder | None = None, namer: MistakeNamer | None = None, contract: set[str] = frozenset()):
        self.folder, self.recorder, self.namer, self.contract = folder, recorder, namer, contract
        self.outcomes: list[tuple[str, str, str]] = []  # function, status, message
        self.unimportable: dict[str, BaseException] = {}  # test file -> why it could not be imported

    def pytest_exception_interact(self, node, call, report) -> None:
        if report.when == "collect" and call.excinfo is not None:
            error = call.excinfo.value
            # pytest wraps an ImportError or a SyntaxError in its own CollectError; the student's is its cause.
            if isinstance(error, pytest.Collector.CollectError) and error.__cause__ is not None:
                error = error.__cause__
            self.unimportable[Path(str(node.path)).name] = error

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
                # A test that ran out of time names nothing: its probes would wait as long again.
                timed_out = isinstance(call.excinfo.value, TestTookTooLong)
                mistake = self.namer.name(function, self.recorder.calls, self.recorder) if status == "failed" and self.namer and not timed_out else None
                if mistake is not None:
                    message = f"known mistake: {mistake.name}. Hint: {mistake.hint}"
                self.outcomes.append((function, status, message))
        return report


def run_check(course: Course, folder: Path, only: list[str] | None = None, test_seconds: float | None = 5.0) -> CheckResult:
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
    left_out = [f"{m}.py not checked: it needs {', '.join(missing[m])}, which is not installed. {install_hint(missing[m][0])}" for m in modules if missing[m]]
    if only and all(missing[m] for m in modules):
        raise CourseError(left_out[0] if len(left_out) == 1 else "; ".join(left_out))
    modules = [m for m in modules if not missing[m]]
    # The catalogue is the instructor's: where the course has it (not in a student release), name mistakes.
    namer = MistakeNamer(course) if (course.solutions_dir / "misconceptions").is_dir() else None
    recorder = CallRecorder(course, folder, modules, probe_seconds=test_seconds or 0) if namer else None
    plugin = CheckPlugin(folder, recorder, namer, {f.name for f in course.functions})
    tests = [course.public_tests_dir / f"test_{m}.py" for m in modules]
    tests = [str(t) for t in tests if t.is_file()]
    if not tests:
        raise CourseError(f"no public tests for {', '.join(modules)}")
    # A file that cannot be imported stops its own tests only, not every other file's.
    args = [*tests, "-c", str(PYTEST_INI), "--rootdir", str(course.exercises_dir), "--continue-on-collection-errors", "-p", "no:terminal", "-p", "no:cacheprovider"]
    previous = os.environ.get(SUBMISSION_VARIABLE)
    os.environ[SUBMISSION_VARIABLE] = str(folder)
    try:
        with held_to_the_course(course, folder):
            exit_code, output = run_captured(args, [plugin, TestDeadline(test_seconds or 0)])
    finally:
        if previous is None:
            os.environ.pop(SUBMISSION_VARIABLE, None)
        else:
            os.environ[SUBMISSION_VARIABLE] = previous
    if exit_code not in COMPLETED:
        raise CourseError(f"the public tests could not run: {first_error_line(output, exit_code)}")
    problems = {test_file: explain_import_failure(course, error, folder, test_file) for test_file, error in plugin.unimportable.items()}
    outcomes = list(plugin.outcomes)
    for module in modules:
        problem = problems.get(f"test_{module}.py")
        if problem is None:
            continue
        own = problem.file == f"{module}.py"
        for function in course.functions_in(module):
            if own:
                outcomes.append((function, "failed", f"not checked: {problem.file} cannot be imported (above)"))
            else:
                outcomes.append((function, "waiting", f"needs {problem.file}, which cannot be imported (above)"))
    lines = list(dict.fromkeys(p.line for p in problems.values()))
    return CheckResult(_summarise(course, outcomes), lines, left_out)


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
