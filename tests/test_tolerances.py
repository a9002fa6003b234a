"""The replay's "same behaviour" stays tighter than every tolerance a hidden test states.

A class's fast path (``attnlab.grading.replay``) keeps a submission's recorded verdict when its result is
within ``SAME_ATOL``/``SAME_RTOL`` of the reference's; a hidden test whose own tolerance came down
to those could pass the reference and fail a result the replay calls the same. So each tolerance
a hidden test writes (``atol=``/``rtol=`` of any call, the positional ones of ``np.isclose`` and
``np.allclose``, and their defaults where left out), and the tolerances ``expect.tolerance`` gives
at each precision, must be at least ``MARGIN`` times the replay's of the same name and precision.
A tolerance written as a name must be a module-level number, so that the rule can read it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from attnlab import expect
from attnlab.grading.replay import compare

HIDDEN_TESTS = Path(__file__).resolve().parents[1] / "solutions" / "hidden_tests"
MARGIN = 10
"""An order of magnitude between a test's tolerance and the replay's, as float32's 20× keeps."""
NUMPY_DEFAULTS = {"isclose": {"rtol": 1e-5, "atol": 1e-8}, "allclose": {"rtol": 1e-5, "atol": 1e-8}}
"""numpy's tolerances where a call leaves them out; positional ones come after the two arrays."""


def _constants(tree: ast.Module) -> dict[str, float]:
    """Module-level ``NAME = number`` bindings, for a tolerance written as a name."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                found[node.targets[0].id] = float(value)
    return found


def _from_expect_tolerance(tree: ast.Module) -> set[str]:
    """Names bound by ``rtol, atol = tolerance(...)``: ``expect.tolerance``'s, which the test of
    the default tolerance checks."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            called = node.value.func
            if (called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")) == "tolerance":
                for target in node.targets:
                    names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def stated_tolerances(source: str, where: str) -> list[tuple[str, str, float]]:
    """(where:line, "atol" or "rtol", value) of each tolerance the source's calls state or leave to
    numpy; one from ``expect.tolerance`` is left to its own test."""
    tree = ast.parse(source)
    constants = _constants(tree)
    from_expect = _from_expect_tolerance(tree)
    found = []

    def value_of(node: ast.expr, line: int, name: str) -> float | None:
        if isinstance(node, ast.Name) and node.id in constants:
            return constants[node.id]
        if isinstance(node, ast.Name) and node.id in from_expect:
            return None
        try:
            return float(ast.literal_eval(node))
        except ValueError:
            raise AssertionError(f"{where}:{line}: {name}= is not a number or a module-level constant") from None

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        stated = {k.arg: value_of(k.value, node.lineno, k.arg) for k in node.keywords if k.arg in ("atol", "rtol")}
        if function in NUMPY_DEFAULTS:
            for name, argument in zip(("rtol", "atol"), node.args[2:4]):
                stated[name] = value_of(argument, node.lineno, name)
            stated = {**NUMPY_DEFAULTS[function], **stated}
        found += [(f"{where}:{node.lineno}", name, value) for name, value in stated.items() if value is not None]
    return found


def too_tight(tolerances, same_atol: float, same_rtol: float) -> list[str]:
    """The tolerances less than ``MARGIN`` times the replay's of the same name."""
    same = {"atol": same_atol, "rtol": same_rtol}
    return [
        f"{place}: {name}={value:g} is within {MARGIN}× the replay's {same[name]:g}"
        for place, name, value in tolerances
        if value < MARGIN * same[name]
    ]


def test_every_tolerance_a_hidden_test_states_is_far_wider_than_the_replays():
    files = sorted(HIDDEN_TESTS.glob("*.py"))
    assert files
    tolerances = [t for path in files for t in stated_tolerances(path.read_text(encoding="utf-8"), path.name)]
    assert any(name == "atol" for _, name, _ in tolerances)
    assert too_tight(tolerances, compare.SAME_ATOL, compare.SAME_RTOL) == []


@pytest.mark.parametrize(
    "dtype, same",
    [
        (np.float64, (compare.SAME_RTOL, compare.SAME_ATOL)),
        (np.float32, (compare.SAME_RTOL_FLOAT32, compare.SAME_ATOL_FLOAT32)),
    ],
)
def test_the_hidden_tests_default_tolerance_is_far_wider_than_the_replays(dtype, same):
    rtol, atol = expect.tolerance(np.zeros(2, dtype=dtype))
    same_rtol, same_atol = same
    assert (
        too_tight([("expect.tolerance", "rtol", rtol), ("expect.tolerance", "atol", atol)], same_atol, same_rtol) == []
    )


def test_the_rule_finds_a_tolerance_that_reaches_the_replays():
    source = (
        "import numpy as np\nTIGHT = 1e-13\n"
        "expect_close(a, b, 'x', atol=1e-12)\nnp.isclose(a, b, 1e-7)\nnp.allclose(a, b, atol=TIGHT)\n"
    )
    found = stated_tolerances(source, "t.py")
    assert (
        ("t.py:3", "atol", 1e-12) in found and ("t.py:4", "rtol", 1e-7) in found and ("t.py:4", "atol", 1e-8) in found
    )
    assert too_tight(found, 1e-12, 1e-10) == [
        "t.py:3: atol=1e-12 is within 10× the replay's 1e-12",
        "t.py:5: atol=1e-13 is within 10× the replay's 1e-12",
    ]
    with pytest.raises(AssertionError, match="t.py:1: atol= is not a number"):
        stated_tolerances("expect_close(a, b, 'x', atol=tolerance_of(a))", "t.py")
    assert stated_tolerances("rtol, atol = tolerance(a)\nnp.isclose(a, b, rtol=rtol, atol=atol)", "t.py") == []
