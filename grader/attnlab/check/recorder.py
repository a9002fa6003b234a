"""The student's own functions during ``attnlab check``: imported within the deadline, their calls
recorded, and their answers on the course's diagnostic probes.

The student's files (those checked and the files before them, which they import) are imported
and their contract functions wrapped before the public tests import them, so ``from softmax
import softmax`` in a test gets the wrapper, and so does ``attention.py``'s own import of it: a
test's recorded calls show every contract function it ran, the student's own.
"""

from __future__ import annotations

import functools
import importlib
import sys
from pathlib import Path

import numpy as np

from attnlab.check.deadline import HungImports, TestTookTooLong, deadline, import_deadline
from attnlab.check.probe_book import ProbeBook, answer_of
from attnlab.course import Course
from attnlab.misconceptions import RecordedCall, same
from attnlab.wire import WireError, copy_plain


class CallRecorder:
    """Records every call of the student's contract functions (arguments and result, as plain data)."""

    def __init__(
        self,
        course: Course,
        folder: Path,
        modules: list[str] | None = None,
        probe_seconds: float = 5.0,
        hung: HungImports | None = None,
    ):
        self.course, self.folder, self.probe_seconds = course, Path(folder), probe_seconds
        checked = modules or list(course.modules)
        # The files checked and those before them: a checked file imports the student's earlier ones.
        before = {m for c in checked for m in course.modules_before(c)}
        self.modules = [m for m in course.modules if m in checked or m in before]
        self.hung = hung or HungImports()
        self.calls: list[RecordedCall] = []
        self.originals: dict = {}
        """The student's own functions and classes, unwrapped, by contract name (for the probes)."""
        self._answers: dict[str, list | None] = {}

    def instrument(self) -> None:
        if str(self.folder) not in sys.path:
            sys.path.insert(0, str(self.folder))
        for module in self.modules:  # importing torch_attention imports torch: only when it is checked
            if not (self.folder / f"{module}.py").is_file() or self.hung.messages.get(module):
                continue
            try:
                with import_deadline(self.probe_seconds, self.folder, self.hung):
                    loaded = importlib.import_module(module)
            except BaseException:  # noqa: BLE001 - the public tests report the student's import error themselves
                continue
            for name in self.course.functions_in(module):
                function = getattr(loaded, name, None)
                if callable(function):
                    self.originals[name] = function
                if callable(function) and not isinstance(function, type):  # classes stay classes
                    setattr(loaded, name, self._recording(name, function))

    def forget_hung(self) -> None:
        if self.hung in sys.meta_path:
            sys.meta_path.remove(self.hung)

    def answers(self, function: str, book: ProbeBook | None) -> list | None:
        """The student's answers on every probe of ``function`` (None: no book, no such function,
        or a probe that did not finish or answer in plain data: no evidence)."""
        if book is None or function not in book.functions or function not in self.originals:
            return None
        if function not in self._answers:
            found = []
            for probe in book.functions[function].probes:
                try:
                    with deadline(self.probe_seconds):
                        answer = answer_of(self.originals[function], probe)
                except (TestTookTooLong, NotImplementedError):
                    answer = None
                if answer is None:
                    found = None
                    break
                found.append(answer)
            self._answers[function] = found
        return self._answers[function]

    def probe(self, function: str, args: tuple, kwargs: dict):
        """The student's own result on one call as plain data, or ``Raised``; None if it gave
        nothing comparable (not plain data, or nothing within the test deadline)."""
        from attnlab.check.probe_book import BookProbe

        try:
            with deadline(self.probe_seconds):
                return answer_of(self.originals[function], BookProbe("", args, kwargs, None))
        except (TestTookTooLong, NotImplementedError):
            return None

    def name(self, function: str, book: ProbeBook | None):
        """The known mistake the student's answers on ``function``'s probes show, if one fits."""
        answers = self.answers(function, book)
        return None if answers is None else book.name(function, answers)

    def fails_its_probes(self, function: str, book: ProbeBook | None) -> bool:
        """Is the student's ``function`` wrong on one of its probes (evidence, for a file not checked)?"""
        answers = self.answers(function, book)
        probes = book.functions[function].probes if answers is not None else ()
        return answers is not None and not all(same(a, p.expected) for a, p in zip(answers, probes))

    def _recording(self, name: str, function):
        @functools.wraps(function)
        def recorded(*args, **kwargs):
            # A large call (a memory test's) is recorded as it is, uncopied: a copy would be counted
            # in the memory the public test measures the student's function by. Only its shapes
            # are shown of it.
            large = _plain_bytes((args, kwargs)) > COPIED_BYTES
            try:
                inputs = (args, kwargs) if large else copy_plain((args, kwargs))
            except WireError:
                inputs = None
            result = function(*args, **kwargs)
            if inputs is not None:
                try:
                    self.calls.append(RecordedCall(name, inputs[0], inputs[1], result if large else copy_plain(result)))
                except WireError:
                    pass
            return result

        return recorded


COPIED_BYTES = 1 << 20
"""A call whose arguments hold more than this is recorded without a copy (``CallRecorder._recording``)."""


def _plain_bytes(value) -> int:
    """The bytes of the arrays in ``value`` (nested tuples, lists, dicts), without copying any."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(_plain_bytes(v) for v in value)
    if isinstance(value, dict):
        return sum(_plain_bytes(v) for v in value.values())
    return 0
