"""What hidden tests call ``student``: the one seam between them and a submission (``student.softmax(x)``).

The proxy looks like a module of the student's functions. Every call goes to
a backend (normally a sandboxed worker) and comes back as plain data. It also
remembers the last call, so feedback can say what the function was given, and
the test's calls, within a budget per test and per submission (``answer_room``).
"""

from __future__ import annotations

import numpy as np

from attnlab.answer_room import KEPT_PER_SUBMISSION_BYTES, KEPT_PER_TEST_BYTES, KeptBudget, plain_bytes
from attnlab.grading.backends import Backend
from attnlab.misconceptions import HeldMemory, Raised, RecordedCall
from attnlab.outcomes import StudentError, SubmissionProblem
from attnlab.wire import copy_plain


def describe_value(value) -> str:
    """A short, readable description of an argument: arrays by dtype and shape, not contents."""
    if isinstance(value, np.ndarray):
        return f"{value.dtype} array of shape {tuple(value.shape)}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {describe_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)) and len(value) > 8:
        return f"{type(value).__name__} of {len(value)} items"
    return repr(value)


def describe_call(function: str, args: tuple, kwargs: dict) -> str:
    parts = [describe_value(a) for a in args] + [f"{k}={describe_value(v)}" for k, v in kwargs.items()]
    return f"{function}({', '.join(parts)})"


class NotKept:
    """In place of the calls a test made past what the grader keeps: it equals no output, so no
    misconception is named from a test whose calls were not all kept."""


class StudentProxy:
    """A student's submission as hidden tests see it: the ``student`` fixture.

    It records the calls of the current test with their results (``calls``), so
    that a failure can be matched against the misconception catalogue: at most
    ``KEPT_PER_TEST_BYTES`` of a test's inputs and results, and
    ``KEPT_PER_SUBMISSION_BYTES`` of every test's together.
    """

    def __init__(self, backend: Backend, function_names: list[str]):
        self._backend = backend
        self._names = set(function_names)
        self.last_call: str | None = None
        self.calls: list[RecordedCall] = []
        self._kept_of_submission = KeptBudget(KEPT_PER_SUBMISSION_BYTES)
        self._kept_of_test = KeptBudget(KEPT_PER_TEST_BYTES)

    def start_test(self) -> None:
        self.last_call, self.calls = None, []
        self._kept_of_test = KeptBudget(KEPT_PER_TEST_BYTES)

    def _keep(self, function: str, inputs: tuple, result, inputs_after: tuple | None = None) -> None:
        """Record a call of the current test, if it fits what is kept; else, once, ``NotKept``."""
        size = plain_bytes(inputs) + plain_bytes(result) + plain_bytes(inputs_after)
        if self._kept_of_test.used + size <= self._kept_of_test.limit and self._kept_of_submission.take(size):
            self._kept_of_test.take(size)
            self.calls.append(RecordedCall(function, inputs[0], inputs[1], result, inputs_after))
        elif not any(isinstance(call.result, NotKept) for call in self.calls):
            self.calls.append(RecordedCall(function, (), {}, NotKept()))

    def _run(self, function: str, args: tuple, kwargs: dict, **options):
        self.last_call = describe_call(function, args, kwargs)
        budget = options.get("memory_budget")
        # The test may change its arrays after the call. A memory-measured call is kept as its
        # verdict alone (``HeldMemory``): its inputs are large, and its values are the test's to check.
        inputs = ((), {}) if budget is not None else copy_plain((args, kwargs))
        try:
            result = self._backend.run(function, args, kwargs, **options)
        except StudentError as error:
            # What it raised is behaviour too: "a mask built on the CPU" shows only as an error on "meta".
            self._keep(function, inputs, Raised(error.error_type or "Exception"))
            raise
        if budget is not None:
            self._keep(function, inputs, HeldMemory(result.peak_bytes > budget))
        else:
            self._keep(function, inputs, result.value, result.inputs_after if options.get("return_inputs") else None)
        return result

    def probe(self, function: str, args: tuple, kwargs: dict):
        """One diagnostic probe's call: its result as plain data, ``Raised`` if the function raised,
        None if it could not answer (timed out, crashed, out of budget). Charged to the submission
        like any call, and never recorded as a test's call."""
        try:
            return self._backend.probe(function, args, kwargs).value
        except StudentError as error:
            return Raised(error.error_type or "Exception")
        except SubmissionProblem:
            return None

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self.__dict__.get("_names", ()):
            raise AttributeError(f"the course has no function {name!r}")

        def call(*args, **kwargs):
            return self._run(name, args, kwargs).value

        call.__name__ = name
        return call

    def peak_memory(self, function: str, *args, **kwargs) -> tuple[object, int]:
        """Call ``function``; return its value and the peak memory (bytes) the call added in the worker."""
        result = self._run(function, args, kwargs, measure_memory=True)
        return result.value, result.peak_bytes

    def memory_within(self, budget_bytes: int, function: str, *args, **kwargs) -> tuple[object, int]:
        """Call ``function``; return its value and the peak memory (bytes) the call added in the
        worker. The test must fail exactly when that peak exceeds ``budget_bytes``: stated up front,
        the verdict is a function of (value, peak), so a recording of the call decides it."""
        result = self._run(function, args, kwargs, measure_memory=True, memory_budget=int(budget_bytes))
        return result.value, result.peak_bytes

    def inputs_after(self, function: str, *args, **kwargs) -> tuple[object, tuple[tuple, dict]]:
        """Call ``function``; return its value and (args, kwargs) as the call left them."""
        result = self._run(function, args, kwargs, return_inputs=True)
        return result.value, result.inputs_after
