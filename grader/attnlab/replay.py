"""Grade a class fast: record the hidden tests' calls once, replay them on each submission.

With hypothesis derandomised, a hidden test is a deterministic function of what
the student's code returns. A submission that returns what the reference
returned, call for call, walks through exactly the run the reference walked
through, and passes. So the class's grading first runs the hidden suite once
against the reference and records, per test, every call it made of a student
function with the value that came back (a ``Script``). Each submission then
gets those calls in one round trip per test; a test whose every value matches
("the same behaviour", far tighter than any test's tolerance) passes without
running pytest. Every other test (a value differs, a call raised or timed out)
runs live, as it would without the script, so feedback and misconception
naming are unchanged.

A test that measures memory is replayed when it states its budget
(``student.memory_within``): the call is measured alone and passes when its
peak is within that budget too. One that reads a bare peak runs live.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from attnlab.backends import Backend, CallResult, InProcessBackend
from attnlab.outcomes import SubmissionProblem
from attnlab.results import TestResult
from attnlab.sandbox.host import batch_message
from attnlab.wire import copy_plain

# "The same behaviour": far tighter than the tolerance a hidden test uses on the same inputs
# (expect.tolerance: rtol 1e-7, atol 1e-9; with any float32 input 2e-4, 2e-5), so no verdict
# can sit between the two. A thousand times for float64; twenty for float32, whose rounding
# noise alone (1e-7 of the summands) is a thousandth of its tolerance: two correct programs
# summing in another order differ by that much.
SAME_RTOL, SAME_ATOL = 1e-10, 1e-12
SAME_RTOL_FLOAT32, SAME_ATOL_FLOAT32 = 1e-5, 1e-6


@dataclass
class RecordedCall:
    """One call a hidden test made of a student function, and what the reference gave back."""

    function: str
    args: tuple
    kwargs: dict
    return_inputs: bool
    value: object
    inputs_after: tuple | None
    memory_budget: int | None = None
    """The peak (bytes) the test allowed this call, when it measured memory: the replayed call
    passes only when its own peak is within it too."""
    float32_inputs: bool = False
    """Some argument is a float32 array: hidden tests then compare at float32's tolerance."""


@dataclass
class ScriptedTest:
    """One hidden test as the reference went through it."""

    nodeid: str
    calls: list[RecordedCall] = field(default_factory=list)
    replayable: bool = True
    """False when a call measured memory with no stated budget or the reference raised: such a
    test always runs live."""
    result: TestResult | None = None
    """The reference's own (passing) result: name, function, file and points."""
    batches: list | None = None
    """The calls grouped by file, each group with its framed message (made at first replay)."""
    examples: list | None = None
    """Per hypothesis example, in order: (the arguments drawn, the span of ``calls`` it made);
    None when the test cannot be run again from them (``body_replay``)."""


@dataclass
class Script:
    """The hidden suite as the reference went through it, in the suite's order."""

    tests: list[ScriptedTest]
    program_plans: dict = field(default_factory=dict)
    """The tests' calls framed for a program worker, by the tests replayed (made at first use)."""
    nested_checks: object = None
    """The ``program_replay.NestedChecks`` of the grading process (made at first use)."""
    selections: dict = field(default_factory=dict)
    """(tests selected, files a program runs) -> (the tests replayed, those of them a program
    runs): the same for every submission of a class (made at first use)."""

    def by_nodeid(self) -> dict[str, ScriptedTest]:
        return {test.nodeid: test for test in self.tests}


class RecordingBackend(Backend):
    """Serves the reference in this process and writes down every call into the current test."""

    mode = "recording the reference's calls"

    def __init__(self, inner: InProcessBackend):
        super().__init__(inner.course, inner.submission, inner.reference)
        self.inner = inner
        self.current: ScriptedTest | None = None
        self.tests: list[ScriptedTest] = []

    def start(self, nodeid: str) -> None:
        self.current = ScriptedTest(nodeid)
        self.tests.append(self.current)

    def run(self, function, args, kwargs, *, measure_memory=False, return_inputs=False, memory_budget=None) -> CallResult:
        test = self.current
        inputs = copy_plain((args, kwargs))
        if measure_memory and memory_budget is None:
            test.replayable = False  # a verdict on a peak with no stated budget: only a live run can tell
        try:
            result = self.inner.run(function, args, kwargs, measure_memory=measure_memory, return_inputs=return_inputs)
        except (Exception, SubmissionProblem):
            test.replayable = False
            raise
        budget = memory_budget if measure_memory else None
        recorded = RecordedCall(function, inputs[0], inputs[1], return_inputs, copy_plain(result.value), copy_plain(result.inputs_after), budget, has_float32(inputs))
        test.calls.append(recorded)
        return result

    def take_output(self) -> str:
        return self.inner.take_output()

    def close(self) -> None:
        self.inner.close()


class RecordingPlugin:
    """Tells the recording backend which test is running."""

    def __init__(self, backend: RecordingBackend):
        self.backend = backend
        self._restore = lambda: None

    def pytest_runtest_setup(self, item) -> None:
        from attnlab.body_replay import record_examples

        self.backend.start(item.nodeid)
        self._restore = record_examples(item, self.backend)

    def pytest_runtest_teardown(self, item) -> None:
        self._restore()


def has_float32(value) -> bool:
    """Is there a float32 array anywhere in this plain value?"""
    if isinstance(value, np.ndarray):
        return value.dtype == np.float32
    if isinstance(value, (tuple, list)):
        return any(has_float32(v) for v in value)
    if isinstance(value, dict):
        return any(has_float32(v) for v in value.values())
    return False


def same_behaviour(got, expected, float32_inputs: bool = False) -> bool:
    """Could no hidden test tell ``got`` from ``expected``? Same types, dtypes, shapes, the
    same exact zeros (in arrays) and non-finite entries, and values equal to within
    ``SAME_RTOL`` (or, for results of float32 inputs, ``SAME_RTOL_FLOAT32``)."""
    if isinstance(expected, np.ndarray) or isinstance(got, np.ndarray):
        return _same_array(got, expected, float32_inputs)
    if type(got) is not type(expected):
        return False
    if isinstance(expected, (tuple, list)):
        return len(got) == len(expected) and all(same_behaviour(g, e, float32_inputs) for g, e in zip(got, expected))
    if isinstance(expected, dict):
        return got.keys() == expected.keys() and all(same_behaviour(got[k], expected[k], float32_inputs) for k in expected)
    if isinstance(expected, (float, complex)):
        # A scalar (a gap, a norm) is compared by tolerance alone: exact zeros matter where a
        # hidden test checks them, in arrays of attention weights.
        return _same_array(np.asarray(got), np.asarray(expected), float32_inputs, exact_zeros=False)
    return got == expected


def _same_array(got, expected, float32_inputs: bool = False, exact_zeros: bool = True) -> bool:
    if not (isinstance(got, np.ndarray) and isinstance(expected, np.ndarray)):
        return False
    if got.dtype != expected.dtype or got.shape != expected.shape:
        return False
    if expected.dtype.kind not in "fc":
        return bool(np.array_equal(got, expected))
    # Plain ufuncs and .any()/.all() rather than np.array_equal: this runs hundreds of times per
    # submission on small arrays, where array_equal's own checks cost more than the comparison.
    if exact_zeros and ((got == 0) != (expected == 0)).any():
        return False
    finite = np.isfinite(expected)
    if finite.all():
        if not np.isfinite(got).all():
            return False
    elif (finite != np.isfinite(got)).any() or not np.array_equal(got[~finite], expected[~finite], equal_nan=True):
        return False
    else:
        got, expected = got[finite], expected[finite]
    rtol, atol = (SAME_RTOL_FLOAT32, SAME_ATOL_FLOAT32) if float32_inputs else (SAME_RTOL, SAME_ATOL)
    return bool((np.abs(got - expected) <= atol + rtol * np.abs(expected)).all())


def replay(script: Script, backend, selected: set[str] | None = None) -> dict[str, TestResult]:
    """Replay the script's replayable tests on ``backend``'s submission; return the passed ones.

    Tests of files of plain functions go to one program worker (``program_replay``); the others
    (a file of classes, or one that needs torch) call each file's worker, a batch per run of
    calls into the same file. A test that fails to match in any way is simply not in the
    answer: it runs live.
    """
    from attnlab.program_replay import program_modules, replay_program

    in_program = frozenset(program_modules(backend.course)) if hasattr(backend, "start_program") else frozenset()
    key = (None if selected is None else frozenset(selected), in_program)
    if key not in script.selections:
        chosen = [t for t in script.tests if t.replayable and t.result is not None and (selected is None or t.nodeid in selected)]
        by_program = [t for t in chosen if all(backend.course.function(c.function).module in in_program for c in t.calls)]
        script.selections[key] = (chosen, by_program)
    chosen, by_program = script.selections[key]
    passed = replay_program(script, backend, by_program)
    programmed = {id(t) for t in by_program}
    for test in chosen:
        if id(test) in programmed:
            continue
        started = time.perf_counter()
        if _replay_test(test, backend):
            duration = round(time.perf_counter() - started, 4)
            passed[test.nodeid] = TestResult(**{**vars(test.result), "output": backend.take_output(), "duration": duration})
        else:
            backend.take_output()  # the live run prints again
    return passed


def _replay_test(test: ScriptedTest, backend) -> bool:
    if test.batches is None:  # framed once, sent to every submission of the class
        test.batches = []
        for batch in _batches_by_file(test.calls, backend.course):
            calls = [(c.function, c.args, c.kwargs, c.return_inputs) for c in batch]
            test.batches.append((batch, calls, batch_message(calls)))
    for batch, calls, framed in test.batches:
        try:
            if batch[0].memory_budget is not None:  # alone in its batch: measured by itself
                call = batch[0]
                result = backend.run(call.function, call.args, call.kwargs, measure_memory=True, return_inputs=call.return_inputs)
                if result.peak_bytes > call.memory_budget:
                    return False
                results = [result]
            else:
                results = backend.run_batch(calls, framed)
        except (Exception, SubmissionProblem):
            return False
        for call, result in zip(batch, results):
            if not same_behaviour(result.value, call.value, call.float32_inputs):
                return False
            if call.return_inputs and not same_behaviour(result.inputs_after, call.inputs_after, call.float32_inputs):
                return False
    return True


def _batches_by_file(calls: list[RecordedCall], course) -> list[list[RecordedCall]]:
    batches: list[list[RecordedCall]] = []
    last_module = None
    for call in calls:
        module = course.function(call.function).module
        if module != last_module or call.memory_budget is not None or batches[-1][0].memory_budget is not None:
            batches.append([])
            last_module = module
        batches[-1].append(call)
    return batches
