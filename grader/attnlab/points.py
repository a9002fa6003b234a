"""Points for hidden tests, kept in one file: ``solutions/hidden_tests/points.toml``.

The table has one section per test file and one key per test function::

    [test_softmax]
    test_rows_sum_to_one = 2

A parametrized test's points are shared evenly among its cases. A test worth 0 is run and its
verdict and feedback shown, never scored: for a property the grader can only take the student's
code's word for (a module run on the meta device gives no value to check).
"""

from __future__ import annotations

from pathlib import Path

from attnlab.course import CourseError, read_toml

POINTS_FILE = "points.toml"


def load_points(hidden_tests_dir: Path) -> dict[tuple[str, str], float]:
    """Map (test file stem, test function) to points."""
    path = hidden_tests_dir / POINTS_FILE
    table = read_toml(path, missing=f"{path} is missing: every hidden test needs its points there")
    points = {}
    for file_stem, tests in table.items():
        if not isinstance(tests, dict):
            raise CourseError(f"{path}: [{file_stem}] must be a table of test = points")
        for test, value in tests.items():
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise CourseError(f"{path}: {file_stem}.{test} must be a number of points, 0 or more")
            points[(file_stem, test)] = float(value)
    return points
