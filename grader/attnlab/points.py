"""Points for hidden tests, kept in one file: ``solutions/hidden_tests/points.toml``.

The table has one section per test file and one key per test function::

    [test_softmax]
    test_values = 2
    test_rows_sum_to_one = { points = 2, paid_with = ["test_values"] }

A parametrized test's points are shared evenly among its cases. A test worth 0 is run and its
verdict and feedback shown, never scored: for a property the grader can only take the student's
code's word for (a module run on the meta device gives no value to check).

A test of a property (a shape, rows summing to 1, an invariance) that a constant of the inputs'
shapes could pass names the values tests of its function it is ``paid_with``: it earns its points
only when every case of those passed too (``pay_for_values``), so a submission earns nothing for
a property of values it did not compute. Two more reasons use the same rule, said with
``because``: ``"fixed inputs"``, a lesson's worked example, which a table of answers could pass,
is paid only beside a test of the same property on drawn inputs; ``"algorithm"``, where the lesson
is an algorithm (online softmax, FlashAttention, a KV cache), every test of the function is paid
only once the test that only that algorithm passes (its memory on long keys) did.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from attnlab.course import CourseError, read_toml
from attnlab.outcomes import Outcome
from attnlab.results import TestResult

POINTS_FILE = "points.toml"


@dataclass(frozen=True)
class PointsTable:
    """What ``points.toml`` says: each test's points, and what pays each property test."""

    points: dict[tuple[str, str], float]
    """(test file stem, test function) -> points."""
    paid_with: dict[tuple[str, str], tuple[str, ...]]
    """(test file stem, property test) -> the tests of the same file whose passing pays it."""
    because: dict[tuple[str, str], str] = dataclasses.field(default_factory=dict)
    """(test file stem, paid test) -> why it is paid with others (``REASONS``); "values" when not said."""


REASONS = ("values", "fixed inputs", "algorithm")
"""Why a test is paid only with others: a property of values, a worked example, an algorithm."""


def load_table(hidden_tests_dir: Path) -> PointsTable:
    """Read and check ``points.toml``: every entry a number of points (0 or more) or an inline table
    ``{ points = N, paid_with = ["test_values", ...] }`` naming unconditional tests of its section."""
    path = hidden_tests_dir / POINTS_FILE
    table = read_toml(path, missing=f"{path} is missing: every hidden test needs its points there")
    points: dict[tuple[str, str], float] = {}
    paid_with: dict[tuple[str, str], tuple[str, ...]] = {}
    because: dict[tuple[str, str], str] = {}
    for file_stem, tests in table.items():
        if not isinstance(tests, dict):
            raise CourseError(f"{path}: [{file_stem}] must be a table of test = points")
        for test, value in tests.items():
            if isinstance(value, dict):
                if not {"points", "paid_with"} <= set(value) <= {"points", "paid_with", "because"}:
                    raise CourseError(
                        f"{path}: {file_stem}.{test} must be a number of points or {{ points = N, paid_with = [\"test_values\"] }}"
                    )
                payers = value["paid_with"]
                if not isinstance(payers, list) or not payers or not all(isinstance(p, str) for p in payers):
                    raise CourseError(
                        f"{path}: {file_stem}.{test}: paid_with must be a list of the test names that pay it, e.g. [\"test_values\"]"
                    )
                reason = value.get("because", "values")
                if reason not in REASONS:
                    raise CourseError(
                        f"{path}: {file_stem}.{test}: because must be one of {', '.join(repr(r) for r in REASONS)}, got {reason!r}"
                    )
                paid_with[(file_stem, test)] = tuple(payers)
                because[(file_stem, test)] = reason
                value = value["points"]
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise CourseError(f"{path}: {file_stem}.{test} must be a number of points, 0 or more")
            points[(file_stem, test)] = float(value)
    for (file_stem, test), payers in paid_with.items():
        for payer in payers:
            if (file_stem, payer) not in points:
                raise CourseError(
                    f"{path}: {file_stem}.{test} is paid with {payer}, which is not a test under [{file_stem}]"
                )
            if payer == test or (file_stem, payer) in paid_with:
                raise CourseError(
                    f"{path}: {file_stem}.{test} is paid with {payer}, which is paid with other tests itself: a test that pays must be a values test with points of its own"
                )
    return PointsTable(points, paid_with, because)


def load_points(hidden_tests_dir: Path) -> dict[tuple[str, str], float]:
    """Map (test file stem, test function) to points."""
    return load_table(hidden_tests_dir).points


def graded_test(nodeid: str) -> tuple[str, str]:
    """(test file stem, test function) of a node id: ``test_softmax.py::test_values[1]``."""
    path, _, name = nodeid.partition("::")
    return Path(path).stem, name.split("[", 1)[0].rsplit("::", 1)[-1]


def pay_for_values(table: PointsTable, graded: list[tuple[str, TestResult]]) -> list[TestResult]:
    """The results of one submission's tests (node id, result), in order, with every passed
    property test whose values tests did not all pass turned into a failure worth nothing, which
    says which test to fix first. The one rule for points of properties, on every path."""
    by_test: dict[tuple[str, str], list[TestResult]] = {}
    for nodeid, result in graded:
        by_test.setdefault(graded_test(nodeid), []).append(result)
    settled = []
    for nodeid, result in graded:
        file_stem, test = graded_test(nodeid)
        payers = table.paid_with.get((file_stem, test), ())
        if result.outcome is Outcome.PASSED and payers:
            missing = [p for p in payers if (file_stem, p) not in by_test]
            if missing:
                raise CourseError(
                    f"hidden test {file_stem}.{test} is paid with {', '.join(missing)}, which did not run: is it defined in {file_stem}.py?"
                )
            unpaid = [r.name for p in payers for r in by_test[(file_stem, p)] if r.outcome is not Outcome.PASSED]
            if unpaid:
                reason = table.because.get((file_stem, test), "values")
                result = dataclasses.replace(
                    result,
                    outcome=Outcome.FAILED,
                    score=0.0,
                    feedback=_unpaid_feedback(result.function, unpaid, reason),
                )
        settled.append(result)
    return settled


def _unpaid_feedback(function: str, unpaid: list[str], reason: str = "values") -> str:
    names = list(dict.fromkeys(unpaid))
    tests = " and ".join(f"“{name}”" for name in names)
    if reason == "fixed inputs":
        return (
            f"Not paid yet: this test passed, but its inputs are fixed (a worked example of the lesson), so it is paid "
            f"only together with the test of the same property on inputs of its own. Fix {tests} first."
        )
    if reason == "algorithm":
        return (
            f"Not paid yet: this test passed, but {function}'s points are for the algorithm the lesson teaches, and "
            f"they are paid once the test that only that algorithm passes does. Fix {tests} first."
        )
    return (
        f"Not paid yet: this property holds, but it is paid only together with the values it is about, "
        f"once {function}'s values are right. Fix {tests} first."
    )
