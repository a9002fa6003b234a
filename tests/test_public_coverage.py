"""A ✓ of ``attnlab check`` means the hidden tests of that function pass on that kind of input.

The public tests (``exercises/tests/``) exercise every kind of input the hidden tests grade: each
optional argument, a mask of each shape, a query that may see no key, scores near ±1e4, float32,
leading axes, a refusal (``tests/call_features.py`` says what a call's kind is). Only the values and
the sizes stay hidden. And each function can be checked as soon as it is written, in the course's
order: a public test of a function calls it and functions before it, never a later one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from call_features import call_features
from conftest import COURSE

from attnlab.reference import Reference
from attnlab.grading.replay.recording import record_script

pytestmark = pytest.mark.slow  # the hidden suite's recorded run and the public tests: half a minute

NUMPY = COURSE.tracks["numpy"]
HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def hidden() -> dict[str, set[str]]:
    """Each function's kinds of input in the calls the hidden tests make (the reference's recorded run)."""
    reference = Reference(COURSE)
    found: dict[str, set[str]] = {}
    for test in record_script(COURSE, reference, only=NUMPY).tests:
        for call in test.calls:
            kinds = call_features(getattr(reference, call.function), call.args, call.kwargs, call.raises is not None)
            found.setdefault(call.function, set()).update(kinds)
    return found


@pytest.fixture(scope="module")
def public() -> list[dict]:
    """Each public test's function and the calls it made (their kinds), run on the reference."""
    done = subprocess.run(
        [sys.executable, str(HERE / "call_features.py"), *NUMPY], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_public_tests_exercise_every_kind_of_input_the_hidden_tests_grade(hidden, public):
    exercised: dict[str, set[str]] = {}
    for test in public:
        for name, kinds in test["calls"]:
            if name == test["function"]:  # a ✓ is the function's own tests': a caller's test fails the caller
                exercised.setdefault(name, set()).update(kinds)
    missing = {f: sorted(kinds - exercised.get(f, set())) for f, kinds in hidden.items()}
    missing = {f: kinds for f, kinds in missing.items() if kinds}
    assert not missing, f"kinds of input the hidden tests grade and no public test of the function exercises: {missing}"


def test_each_function_can_be_checked_as_soon_as_it_is_written(public):
    order = {f.name: index for index, f in enumerate(COURSE.functions)}
    later = sorted(
        {
            (test["test"], test["function"], name)
            for test in public
            for name, _ in test["calls"]
            if test["function"] in order and order[name] > order[test["function"]]
        }
    )
    assert not later, f"public tests that call a function written after the one they check: {later}"


def test_the_kinds_of_a_call():
    """What the comparison rests on: the features read off a call."""
    import numpy as np

    reference = Reference(COURSE)
    q = np.ones((2, 3, 4), dtype=np.float32)
    left = np.array([[False, True, True], [True, True, True]])[:, None, :]
    kinds = call_features(reference.online_softmax_attention, (q, q, q, 2), {"causal": True, "mask": left}, False)
    assert kinds == {"arg:causal", "arg:mask", "dtype:float32", "rank:3", "form:mask:keys", "blind"}
    assert call_features(reference.softmax, (np.full((2, 2), 1e4),), {}, False) == {"rank:2", "large"}
    assert "raises" in call_features(
        reference.learned_positions, (np.zeros(3, int), np.ones((2, 2)), np.ones((2, 2))), {}, True
    )
