"""Run a hidden test's own checks on the results a program gave, without pytest or hypothesis.

The program replay (``program_replay``) passes a test whose every result is the
reference's, or within a hair of it. A result the hidden test would accept all
the same, say float64 where the reference returns float32, or values off by
more than that hair but within the test's own tolerance, used to send the test
to the live run: a pytest session and hypothesis generating its examples anew,
for a verdict the program's results already hold.

So the recording also keeps, per hypothesis test, the arguments hypothesis
drew for each example (``record_examples``), and the calls each example made.
A test left undecided only by such values, every call clean (no nested result
to answer for, nothing raised, nothing printed unreadably), is then run here:
its inner function (the body under ``@given``) on each recorded example in
order, with a stand-in ``student`` that answers the recorded calls with the
program's results, and the real reference. Derandomised hypothesis runs those
same examples live, in that order, while they pass: so when every one passes
here, the live run passes too. Anything else (a check fails, a call the
recording does not have, an example of ``st.data()``) leaves the test live,
where a failure is shrunk and explained as always.

One margin is the fast path's own: a clean result's nested calls were accepted
within ``replay.SAME_RTOL`` of the reference's answers (which a live stand-in
would have given exactly), so the value checked here may differ from the live
one by that much; the hidden tests' tolerances are a thousand times wider.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path

from attnlab.replay import RecordedCall, ScriptedTest
from attnlab.wire import WireError, copy_plain, fingerprint

FIXTURES = ("student", "reference")


class NotReplayable(Exception):
    """The body asked for something the recording cannot answer."""


def record_examples(item, backend):
    """Wrap ``item``'s hypothesis body so that each example's drawn arguments, and the span of
    calls it made, are kept on the test being recorded (``backend.current``). Returns what
    puts the body back, to call when the test is over."""
    hypothesis = getattr(getattr(item, "obj", None), "hypothesis", None)
    inner = getattr(hypothesis, "inner_test", None)
    if inner is None:
        return lambda: None
    test = backend.current
    test.examples = []

    def recorded(*args, **kwargs):
        start = len(test.calls)
        drawn = {k: v for k, v in kwargs.items() if k not in FIXTURES}
        try:
            kept = copy_plain((args, drawn))  # before the body changes its arrays in place
        except WireError:  # st.data() and the like: this test is not run here
            kept = None
        try:
            return inner(*args, **kwargs)
        finally:
            if test.examples is not None:
                if kept is None or args:
                    test.examples = None
                else:
                    test.examples.append((kept[1], start, len(test.calls)))

    # Hypothesis seeds a derandomized test from its body's source and signature: the wrapper
    # must read as the body (functools.wraps: inspect follows __wrapped__), or the recording
    # draws other examples than every live run of the test does.
    hypothesis.inner_test = functools.wraps(inner)(recorded)
    return lambda: setattr(hypothesis, "inner_test", inner)


class _Student:
    """``student`` for one example: answers its recorded calls, in order, with given values."""

    def __init__(self, calls: list[RecordedCall], values: list):
        self._calls, self._values, self._next = calls, values, 0

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            if self._next >= len(self._calls):
                raise NotReplayable(f"{name}: more calls than recorded")
            expected = self._calls[self._next]
            if expected.function != name or expected.return_inputs or expected.memory_budget is not None:
                raise NotReplayable(f"{name}: not the call recorded")
            try:
                same = fingerprint((args, kwargs)) == fingerprint((expected.args, expected.kwargs))
            except WireError:
                same = False
            if not same:
                raise NotReplayable(f"{name}: other arguments than recorded")
            value = self._values[self._next]
            self._next += 1
            return copy_plain(value)

        return call

    @property
    def _done(self) -> bool:
        return self._next == len(self._calls)


_BODIES: dict[tuple[str, str], object] = {}


def inner_test(hidden_tests_dir: Path, nodeid: str):
    """The body under ``@given`` of the hidden test ``nodeid`` (its module as a pytest session
    in this process imported it, else imported once per process as pytest would: the hidden
    tests' folder on the path), or None."""
    key = (str(hidden_tests_dir), nodeid)
    if key not in _BODIES:
        _BODIES[key] = None
        file, _, name = nodeid.partition("::")
        path = Path(hidden_tests_dir) / file
        if "[" not in name and "::" not in name and path.is_file():
            module_name = f"attnlab_hidden_{path.stem}"
            # pytest's own import of it, when a session ran here (``load_hidden_tests``), else ours.
            module = sys.modules.get(path.stem)
            if module is None or Path(getattr(module, "__file__", None) or "") != path:
                module = sys.modules.get(module_name)
            if module is None:
                if str(hidden_tests_dir) not in sys.path:
                    sys.path.insert(0, str(hidden_tests_dir))
                spec = importlib.util.spec_from_file_location(module_name, path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                sys.modules[module_name] = module
            hypothesis = getattr(getattr(module, name, None), "hypothesis", None)
            _BODIES[key] = getattr(hypothesis, "inner_test", None)
    return _BODIES[key]


def body_passes(test: ScriptedTest, values: list, reference, hidden_tests_dir: Path) -> bool:
    """Does the test's body pass every recorded example, the student's calls answered with
    ``values`` (one per recorded call, in order)?"""
    examples = getattr(test, "examples", None)
    if not examples or len(values) != len(test.calls):
        return False
    spans = [(start, end) for _, start, end in examples]
    if [start for start, _ in spans] != [0, *(end for _, end in spans[:-1])] or spans[-1][1] != len(test.calls):
        return False  # the examples' calls are not the test's calls, back to back
    try:
        body = inner_test(hidden_tests_dir, test.nodeid)
    except Exception:  # noqa: BLE001 - the module does not import here: the live run says why
        return False
    if body is None:
        return False
    for drawn, start, end in examples:
        student = _Student(test.calls[start:end], values[start:end])
        try:
            body(student=student, reference=reference, **copy_plain(drawn))  # the body may change them
        except Exception:  # noqa: BLE001 - a failed check, or NotReplayable: the live run decides
            return False
        if not student._done:
            return False
    return True
