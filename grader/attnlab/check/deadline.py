"""A public test's deadline: past it the test fails where the student's code was, instead of
hanging the check (``attnlab check``, and plain ``pytest exercises`` through the course's
conftest). The public tests run the student's code in the checking process itself."""

from __future__ import annotations

import contextlib
import signal
import threading

import pytest


class TestTookTooLong(BaseException):
    """Raised in a public test that ran past its time. Not an ``Exception``: a student's
    ``except Exception`` around the loop must not swallow it."""

    __test__ = False


def function_of(item) -> str:
    """The function a public test checks: its docstring starts ``softmax: ...``."""
    doc = (getattr(item.function, "__doc__", None) or item.name).strip()
    return doc.split(":", 1)[0].strip()


class TestDeadline:
    """Fails a test past ``seconds`` (again every second after, should a bare ``except:`` catch
    it), and does not run the other tests of a function that timed out: each would wait as long
    again."""

    __test__ = False

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.timed_out: set[str] = set()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        if not self.seconds or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            return (yield)
        __tracebackhide__ = True  # plain pytest shows the student's frames, not the deadline's
        function = function_of(item)
        if function in self.timed_out:
            raise TestTookTooLong(f"not run: {function} did not finish within {self.seconds:g} s in an earlier test")

        def took_too_long(signum, frame):
            __tracebackhide__ = True
            self.timed_out.add(function)
            raise TestTookTooLong(f"did not finish within {self.seconds:g} s: a loop that never ends?")

        previous = signal.signal(signal.SIGALRM, took_too_long)
        signal.setitimer(signal.ITIMER_REAL, self.seconds, 1.0)
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

    def took_too_long(signum, frame):
        raise TestTookTooLong(f"did not finish within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, took_too_long)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def register_unless_present(config, seconds: float) -> None:
    """Give a pytest session a ``TestDeadline`` unless it has one (``attnlab check`` brings its own)."""
    if not any(isinstance(plugin, TestDeadline) for plugin in config.pluginmanager.get_plugins()):
        config.pluginmanager.register(TestDeadline(seconds), "attnlab-test-deadline")
