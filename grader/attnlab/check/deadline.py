"""A public test's deadline: past it the test fails where the student's code was, instead of
hanging the check (``attnlab check``, and plain ``pytest exercises`` through the course's
conftest). The public tests run the student's code in the checking process itself. The deadline
covers importing the student's files too: a loop at the top of a file is named with its file and
line, and the file is not imported again (every test file that imports it would wait as long).
A deadline is CPU time of the checking process, so a busy machine slows a test and never fails
it; code that waits without computing is stopped at ``WALL_FACTOR`` times the deadline."""

from __future__ import annotations

import contextlib
import linecache
import signal
import sys
import threading
import time
from pathlib import Path

import pytest


WALL_FACTOR = 4
"""Code that waits (a sleep, a lock) uses no CPU: it is stopped at this many deadlines of wall time."""
_CHECK_EVERY = 0.25
"""Seconds between two looks at the time spent, once the deadline's wall time has passed."""


class _Overdue:
    """Whether a block that started now has run past ``seconds``: as many CPU seconds of this
    process, or ``WALL_FACTOR`` times as many seconds of wall time."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.cpu, self.wall = time.process_time(), time.monotonic()

    def __call__(self) -> bool:
        return (
            time.process_time() - self.cpu >= self.seconds or time.monotonic() - self.wall >= self.seconds * WALL_FACTOR
        )


def _arm(seconds: float) -> None:
    """SIGALRM after ``seconds`` of wall time (CPU time never runs faster), then every quarter second."""
    signal.setitimer(signal.ITIMER_REAL, seconds, _CHECK_EVERY)


class TestTookTooLong(BaseException):
    """Raised in a public test that ran past its time. Not an ``Exception``: a student's
    ``except Exception`` around the loop must not swallow it."""

    __test__ = False


class ImportTookTooLong(ImportError):
    """Importing a student's file that did not finish the first time: refused at once after it."""


class HungImports:
    """A meta path finder that refuses the student's files whose import ran past the deadline."""

    def __init__(self):
        self.messages: dict[str, str] = {}

    def refuse(self, module: str, message: str) -> None:
        self.messages[module] = message
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def find_spec(self, fullname: str, path=None, target=None):
        if fullname in self.messages:
            raise ImportTookTooLong(self.messages[fullname], name=fullname)
        return None


def _innermost_in(frame, folder: Path):
    """The innermost frame of the stack at ``frame`` whose code is a file of ``folder``."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.endswith(".py") and Path(filename).is_absolute() and Path(filename).resolve().parent == folder:
            return frame
        frame = frame.f_back
    return None


@contextlib.contextmanager
def import_deadline(seconds: float, folder: Path | None, hung: HungImports):
    """Within: importing a file of ``folder`` fails past ``seconds``, with its file and line, and
    the file is refused from then on. Time a file spends on its own import statements (torch takes
    seconds to import) is not its loop: only code of the file itself is stopped."""
    if (
        not seconds
        or folder is None
        or not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    folder = Path(folder).resolve()
    overdue = _Overdue(seconds)

    def took_too_long(signum, frame):
        if not overdue():
            return
        own = _innermost_in(frame, folder)
        if own is None:
            return  # not the student's code (a library loading): let it go on
        code = linecache.getline(own.f_code.co_filename, own.f_lineno).strip()
        if code.startswith(("import ", "from ")):
            return
        name = Path(own.f_code.co_filename).name
        message = (
            f"{name}, line {own.f_lineno} ({code}): did not finish within {seconds:g} s while the file was imported: "
            "a loop at the top of the file that never ends? Code at the top of a file runs on import: fix it, or move it into a function"
        )
        hung.refuse(Path(name).stem, message)
        raise TestTookTooLong(message)

    previous = signal.signal(signal.SIGALRM, took_too_long)
    _arm(seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def function_of(item) -> str:
    """The function a public test checks: its docstring starts ``softmax: ...``, or, for a test of
    several functions (the probes'), its ``function`` parameter does."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    if isinstance(params.get("function"), str):
        return params["function"]
    doc = (getattr(item.function, "__doc__", None) or item.name).strip()
    return doc.split(":", 1)[0].strip()


class TestDeadline:
    """Fails a test past ``seconds`` (again every quarter second after, should a bare ``except:``
    catch it), and does not run the other tests of a function that timed out: each would wait as long
    again."""

    __test__ = False

    def __init__(self, seconds: float, folder: Path | None = None):
        self.seconds, self.folder = seconds, folder
        self.timed_out: set[str] = set()
        self.hung = HungImports()
        """The student's files whose import ran past the deadline."""

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector):
        # Collecting a test file imports the student's files it names.
        if not isinstance(collector, pytest.Module):
            return (yield)
        with import_deadline(self.seconds, self.folder, self.hung):
            return (yield)

    def pytest_unconfigure(self, config) -> None:
        if self.hung in sys.meta_path:
            sys.meta_path.remove(self.hung)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        if (
            not self.seconds
            or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()
        ):
            return (yield)
        __tracebackhide__ = True  # plain pytest shows the student's frames, not the deadline's
        function = function_of(item)
        if function in self.timed_out:
            raise TestTookTooLong(f"not run: {function} did not finish within {self.seconds:g} s in an earlier test")

        overdue = _Overdue(self.seconds)

        def took_too_long(signum, frame):
            __tracebackhide__ = True
            if not overdue():
                return
            self.timed_out.add(function)
            raise TestTookTooLong(f"did not finish within {self.seconds:g} s: a loop that never ends?")

        previous = signal.signal(signal.SIGALRM, took_too_long)
        _arm(self.seconds)
        try:
            return (yield)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def deadline(seconds: float):
    """Raise ``TestTookTooLong`` in the block past ``seconds`` (and every second after), for code of
    the student's run outside a test (a diagnostic probe); without a timer, the block runs as is."""
    if not seconds or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    overdue = _Overdue(seconds)

    def took_too_long(signum, frame):
        if overdue():
            raise TestTookTooLong(f"did not finish within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, took_too_long)
    _arm(seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def register_unless_present(config, seconds: float, folder: Path | None = None) -> None:
    """Give a pytest session a ``TestDeadline`` (on the student's files in ``folder``) unless it
    has one (``attnlab check`` brings its own)."""
    if not any(isinstance(plugin, TestDeadline) for plugin in config.pluginmanager.get_plugins()):
        config.pluginmanager.register(TestDeadline(seconds, folder), "attnlab-test-deadline")
