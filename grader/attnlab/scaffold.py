"""``attnlab new exercise NAME``: every file a new exercise file needs, with a worked example of each.

A new exercise touches seven places: the course manifest, the reference solution, the public
tests, the hidden tests and their points, the catalogue of known mistakes, and (in a checkout
with the project's tests) a buggy student file that makes the catalogued mistake. ``new_exercise``
writes them all around one small example function (rows scaled to unit length), which grades at
full marks as written, so an author replaces a working example rather than filling in blanks.
The student stub is then generated from the solution (``export.stubs``), as for every file.
"""

from __future__ import annotations

import keyword
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import tomlkit

from attnlab.course import MANIFEST, Course, CourseError
from attnlab.points import POINTS_FILE

_NAME = re.compile(r"[a-z][a-z0-9_]*")
# Files of a course's folders that are not exercise files: a new exercise may not take their names.
_TAKEN = {"conftest", "attnlab", "solutions", "exercises", "hidden_tests", "misconceptions", "tests", "setup"}
EXAMPLE_POINTS = {"test_shape_is_kept": 1, "test_values": 2}
# A constant of the input's shape keeps the shape: that test is paid only with the values.
EXAMPLE_PAID_WITH = {"test_shape_is_kept": ["test_values"]}


@dataclass(frozen=True)
class Scaffold:
    """What ``new_exercise`` wrote, for the author to edit next."""

    created: tuple[Path, ...]
    """New files, in the order an author edits them."""
    edited: tuple[Path, ...]
    """Existing files it added to (course.toml, points.toml)."""
    function: str
    """The example function, to rename or replace."""


def check_exercise_name(course: Course, name: str) -> None:
    """Refuse a name that cannot be a new exercise file of ``course`` (a ``CourseError``, one line)."""
    if not _NAME.fullmatch(name) or keyword.iskeyword(name):
        raise CourseError(
            f"{name!r} cannot name an exercise file: use lower-case letters, digits and _, starting with a letter (e.g. rms_norm)"
        )
    if name in course.modules:
        raise CourseError(f"the course already has an exercise file named {name}")
    if name in sys.stdlib_module_names or name in course.libraries or name in _TAKEN or name.startswith("test"):
        raise CourseError(
            f"{name!r} cannot name an exercise file: it is the name of a module students or the grader import ({name}.py would hide it)"
        )
    if f"{name}_example" in {f.name for f in course.functions}:
        raise CourseError(f"the course already has a function named {name}_example")


def new_exercise(course: Course, name: str, after: str | None = None) -> Scaffold:
    """Write the files of a new exercise file ``name`` into ``course`` (a folder with its
    solutions), placed in course order right ``after`` that file (None: last); refuse, before
    writing anything, when a name is bad or a file already exists."""
    check_exercise_name(course, name)
    if after is not None and after not in course.modules:
        raise CourseError(
            f"no exercise file named {after} to put {name} after (the course has {', '.join(course.modules)})"
        )
    if not course.solutions_dir.is_dir():
        raise CourseError(
            f"{course.solutions_dir} is missing: a new exercise is written into the instructor's copy of the course"
        )
    function = f"{name}_example"
    mistake = f"{function}_wrong_axis"
    files = {
        course.solutions_dir / f"{name}.py": _SOLUTION,
        course.public_tests_dir / f"test_{name}.py": _PUBLIC_TESTS,
        course.hidden_tests_dir / f"test_{name}.py": _HIDDEN_TESTS,
        course.solutions_dir / "misconceptions" / f"{name}.py": _MISCONCEPTIONS,
    }
    buggy = course.root / "tests" / "submissions" / "buggy"
    if buggy.is_dir():  # the project's own tests check each catalogued mistake against such a file
        files[buggy / f"{mistake}.py"] = _BUGGY
    existing = [str(path) for path in files if path.exists()]
    if existing:
        raise CourseError(f"{existing[0]} already exists: choose another name, or remove it first")
    manifest, points = _added_module(course, name, after), _added_points(course, name)
    for path, template in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(name=name, function=function, mistake=mistake), encoding="utf-8")
    (course.root / MANIFEST).write_text(manifest, encoding="utf-8")
    (course.hidden_tests_dir / POINTS_FILE).write_text(points, encoding="utf-8")
    return Scaffold(
        created=tuple(files), edited=(course.root / MANIFEST, course.hidden_tests_dir / POINTS_FILE), function=function
    )


def _added_module(course: Course, name: str, after: str | None) -> str:
    """course.toml with ``name`` in ``modules`` right after ``after`` (None: last), its comments kept."""
    document = tomlkit.parse((course.root / MANIFEST).read_text(encoding="utf-8"))
    modules = document["course"]["modules"]
    modules.insert(len(modules) if after is None else list(modules).index(after) + 1, name)
    return tomlkit.dumps(document)


def _added_points(course: Course, name: str) -> str:
    """points.toml with a ``[test_NAME]`` table of the example's hidden tests, its comments kept."""
    path = course.hidden_tests_dir / POINTS_FILE
    document = tomlkit.parse(path.read_text(encoding="utf-8")) if path.is_file() else tomlkit.document()
    if f"test_{name}" in document:
        raise CourseError(f"{path} already has a [test_{name}] table: remove it first")
    table = tomlkit.table()
    for test, points in EXAMPLE_POINTS.items():
        if test in EXAMPLE_PAID_WITH:
            entry = tomlkit.inline_table()
            entry.update({"points": points, "paid_with": EXAMPLE_PAID_WITH[test]})
            table.add(test, entry)
        else:
            table.add(test, points)
    document.add(f"test_{name}", table)
    return tomlkit.dumps(document)


_SOLUTION = '''"""{name}: what this exercise file teaches, in a sentence or two for students.

Written by `attnlab new exercise`: {function} is a worked example of the form. Replace it with the
exercise's functions; `attnlab stubs` turns each BEGIN/END SOLUTION region into the student's stub.
"""

import numpy as np


def {function}(x):
    """Each row of ``x`` (along the last axis) scaled to length 1.

    Shapes: x (..., n, d) -> (..., n, d), the same shape; every row has Euclidean norm 1.

    >>> {function}(np.array([[3.0, 4.0]]))
    array([[0.6, 0.8]])
    """
    ### BEGIN SOLUTION
    ### HINT: divide by np.linalg.norm along the last axis, with keepdims=True so it broadcasts.
    return x / np.linalg.norm(x, axis=-1, keepdims=True)  # (..., n, d)
    ### END SOLUTION
'''

_PUBLIC_TESTS = '''"""Public tests for {name}.py: run them with `attnlab check` or `pytest`.

Each test's docstring starts with `function: what it checks`; use the lesson's worked examples.
"""

import numpy as np
from {name} import {function}

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close


def test_worked_example():
    """{function}: the row [3, 4] becomes [0.6, 0.8]"""
    expect_close({function}(np.array([[3.0, 4.0]])), [[0.6, 0.8]], "{function}([[3, 4]])")


# The catalogue's diagnostic probes (exercises/tests/probes.json, written by `attnlab stubs`), one public test each.
test_diagnostic_probes = probe_tests(__file__, "{name}")
'''

_HIDDEN_TESTS = '''"""Hidden tests for {name}.py.

Each test takes the `student` and `reference` fixtures, and its docstring starts with
`function: property`, the test's name in every report. Its points are under [test_{name}] in
points.toml: a test that is not listed there stops grading with an error. A test that a constant
of the input's shape could pass (a shape, rows summing to 1, an invariance) is paid only with
the values: `paid_with = ["test_values"]` there. Give expect_close the inputs the result was
computed from: they, never the student's answer, set the tolerance.
"""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import expect_array, expect_close, expect_shape

# Small shapes (1 to 4 along each axis), so a failure shrinks to an example a student can read.
SHAPES = st.lists(st.integers(1, 4), min_size=2, max_size=3).map(tuple)
SEEDS = st.integers(0, 2**32 - 1)


def rows(seed, shape):
    """Random rows of a seeded normal draw, none of them zero."""
    return np.random.default_rng(seed).normal(size=shape) + 0.1


@given(SHAPES, SEEDS)
def test_shape_is_kept(student, reference, shape, seed):
    """{function}: the output has the input's shape"""
    x = rows(seed, shape)
    got = expect_array(student.{function}(x), "{function}(x)")
    expect_shape(got, x.shape, "{function}(x)", "the shape of x")


@given(SHAPES, SEEDS)
def test_values(student, reference, shape, seed):
    """{function}: every row is the input's row divided by its length"""
    x = rows(seed, shape)
    expect_close(student.{function}(x), reference.{function}(x), "{function}(x)", x)
'''

_MISCONCEPTIONS = '''"""Known wrong versions of the functions of {name}.py (instructor-only: never shipped to students)."""

import numpy as np

from attnlab.misconceptions import misconception, probe


@misconception(
    "{function}",
    "scaled along the wrong axis",
    explanation="Each column was divided by its length instead of each row: the norm was taken along axis -2, the rows, rather than along the last axis, the features of one row.",
    hint="Take np.linalg.norm along axis=-1 with keepdims=True.",
)
def {mistake}(x):
    return x / np.linalg.norm(x, axis=-2, keepdims=True)


# A diagnostic probe: a fixed input, harmless to show a student, on which every entry above differs
# from the reference and from each other (the rows and the columns of a 2 x 3 array have other lengths).
probe("{function}", "a 2 x 3 array: its rows and its columns have other lengths", np.array([[3.0, 4.0, 0.0], [1.0, 2.0, 2.0]]))
'''

_BUGGY = '''"""Divides each column by its length, not each row.

file: {name}.py
breaks: {function}
"""

import numpy as np


def {function}(x):
    return x / np.linalg.norm(x, axis=-2, keepdims=True)
'''
