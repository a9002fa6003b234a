"""What runs in nbgrader's kernel when it autogrades the exported notebooks: the hidden tests.

``hidden_test_failure(nodeid, globals(), course=...)``, in the hidden part of each autograded
cell, runs that hidden test of ``attnlab grade`` against the functions the notebook defined and
returns its feedback when it did not pass; the cell asserts that there is none, so a failing cell
shows the grader's feedback and nothing of the grader's own code. The first such cell of a
notebook runs the file's whole hidden suite once (hypothesis, feedback, named misconceptions, as
``attnlab grade`` does) and each cell reports its own test. As the contract says, functions of
earlier files and the other functions of the same file are the reference while a function is
tested, so one bug costs points once.

The notebooks import each other with ``notebook_imports`` (beside them, stdlib only: students
need no attnlab); its finders step aside while the reference files are imported here.

nbgrader runs the student's code in its kernel without a sandbox; that is nbgrader's model.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from attnlab.course import Course, CourseError
from attnlab.grading.backends import InProcessBackend
from attnlab.outcomes import Outcome
from attnlab.results import TestResult


@contextlib.contextmanager
def _reference_view(course: Course):
    """For a moment, plain module names mean the reference files, not the sibling notebooks."""
    from attnlab.reference import reference_names

    finders = [f for f in sys.meta_path if getattr(f, "exercise_notebooks", False) is True]
    for finder in finders:
        finder.enabled = False
    try:
        with reference_names(course):
            yield
    finally:
        for finder in finders:
            finder.enabled = True


class NamespaceBackend(InProcessBackend):
    """The functions a notebook defined (its ``globals()``), called in this kernel."""

    mode = "in the notebook's kernel (nbgrader runs student code without a sandbox)"

    def __init__(self, course: Course, namespace: dict, reference):
        super().__init__(course, Path("."), reference)
        self.namespace = namespace

    def _namespace(self, module: str) -> dict:
        return self.namespace

    def _stand_in_names(self, module: str, function: str) -> list[str]:
        # A notebook imported earlier files from the student's own notebooks: the reference
        # stands in for those too, as in the sandbox.
        earlier = [f for m in self.course.modules_before(module) for f in self.course.functions_in(m)]
        return earlier + list(self.course.depends_on(function))

    def _is_student_frame(self, filename: str, module: str) -> bool:
        return "attnlab" not in Path(filename).parts and "site-packages" not in filename


class KernelResults:
    """The hidden results of each (notebook, hidden test file) this kernel has run: a file's suite
    runs once, at its first autograded cell, and is kept until the kernel restarts (nbgrader
    starts a kernel per notebook). A notebook is its ``globals()``, held here so that its id is
    never another's."""

    def __init__(self):
        self._by_notebook: dict[tuple[int, str], tuple[dict, dict[str, TestResult]]] = {}

    def of(self, course: Course, test_file: str, namespace: dict) -> dict[str, TestResult]:
        key = (id(namespace), test_file)
        if key not in self._by_notebook:
            self._by_notebook[key] = (namespace, run_hidden_file(course, test_file, namespace))
        return self._by_notebook[key][1]


_RESULTS_UNTIL_KERNEL_RESTARTS = KernelResults()


def run_hidden_file(course: Course, test_file: str, namespace: dict) -> dict[str, TestResult]:
    """Run one hidden test file against ``namespace``; its results by node id."""
    from attnlab.grading.hidden_suite import run_suite
    from attnlab.points import load_table, pay_for_values
    from attnlab.reference import Reference

    module = test_file.removeprefix("test_").removesuffix(".py")
    if module not in course.modules:
        raise CourseError(f"no exercise file for hidden tests {test_file}")
    # The reference, the catalogue and the hidden tests all import plain module names.
    with _reference_view(course):
        reference = Reference(course)
        reference.preload([f for m in (*course.modules_before(module), module) for f in course.functions_in(m)])
        plugin = run_suite(
            course, [course.hidden_tests_dir / test_file], NamespaceBackend(course, namespace, reference), reference
        )
    paid = pay_for_values(load_table(course.hidden_tests_dir), list(zip(plugin.nodeids, plugin.results)))
    return dict(zip(plugin.nodeids, paid))  # node ids relative to hidden_tests/, as exported


def hidden_test_failure(nodeid: str, namespace: dict, course: str | None = None) -> str | None:
    """nbgrader's autograded cell: None when this hidden test passed, else the grader's feedback."""
    root = os.environ.get("ATTNLAB_COURSE") or course
    if not root:
        raise CourseError("hidden tests need the course: set ATTNLAB_COURSE")
    loaded = Course.load(Path(root))
    test_file = nodeid.split("::", 1)[0]
    result = _RESULTS_UNTIL_KERNEL_RESTARTS.of(loaded, test_file, namespace).get(nodeid)
    if result is None:
        raise CourseError(f"no hidden test {nodeid} (was the course changed after the export?)")
    if result.outcome is not Outcome.PASSED:
        return f"{result.name}: {result.outcome.value}\n\n{result.feedback}"
    print(f"passed: {result.name}")
    return None
