"""The course as Jupyter notebooks (the nbgrader export): imports between notebooks, and hidden tests.

Two things run inside a notebook's kernel:

- ``import_notebooks([...])``, in each notebook's locked set-up cell, lets ``from softmax import
  softmax`` load the student's own ``softmax.ipynb`` next to it (its set-up and solution cells),
  as the files of ``exercises/`` import each other.
- ``hidden_test(nodeid, globals(), course=...)``, in the hidden part of each autograded cell,
  runs that hidden test of ``attnlab grade`` against the functions the notebook defined. The
  first such cell of a notebook runs the file's whole hidden suite once (hypothesis, feedback,
  named misconceptions, as ``attnlab grade`` does) and each cell reports its own test. As the
  contract says, functions of earlier files and the other functions of the same file are the
  reference while a function is tested, so one bug costs points once.

nbgrader runs the student's code in its kernel without a sandbox; that is nbgrader's model.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.util
import os
import sys
from pathlib import Path

from attnlab.course import Course, CourseError
from attnlab.grading.backends import InProcessBackend
from attnlab.outcomes import Outcome
from attnlab.results import TestResult
from attnlab.roster import notebook_code

SETUP_PREFIX = "setup-"
"""grade_id prefix of a notebook's locked set-up cell (its imports)."""


def _defines_code(cell: dict) -> bool:
    """A set-up or solution cell: what an import of the notebook runs (never its tests)."""
    metadata = cell.get("metadata")
    meta = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    if not isinstance(meta, dict):  # a student's notebook may hold anything here
        return False
    return bool(meta.get("solution")) or str(meta.get("grade_id", "")).startswith(SETUP_PREFIX)


def notebook_source(path: Path) -> str:
    """The code a notebook defines: its set-up and solution cells, in order (magics dropped)."""
    return notebook_code(path, keep=_defines_code)


class _NotebookLoader(importlib.abc.Loader):
    def __init__(self, path: Path):
        self.path = path

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        exec(compile(notebook_source(self.path), str(self.path), "exec"), module.__dict__)


class _MissingNotebookLoader(importlib.abc.Loader):
    """An exercise notebook that is not there (nbgrader autogrades notebooks one at a time, in a
    folder it fills as it goes): its names exist, and say so when called. The hidden tests put
    the reference in their place, so grading never calls them."""

    def __init__(self, name: str, folder: Path):
        self.name, self.folder = name, folder

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        name, folder = self.name, self.folder

        def missing(attribute: str):
            def unavailable(*args, **kwargs):
                raise RuntimeError(f"{name}.ipynb is not next to this notebook (in {folder}), so {name}.{attribute} cannot run here")

            unavailable.__name__ = attribute
            return unavailable

        module.__getattr__ = missing


class NotebookFinder(importlib.abc.MetaPathFinder):
    """Finds ``NAME.ipynb`` in one folder for ``import NAME``, for the course's exercise names."""

    def __init__(self, folder: Path, names: tuple[str, ...]):
        self.folder, self.names = folder, names
        self.enabled = True

    def find_spec(self, name, path=None, target=None):
        if not self.enabled or path is not None or name not in self.names:
            return None
        notebook = self.folder / f"{name}.ipynb"
        if not os.path.lexists(notebook):  # a link is found, and refused when it is loaded
            return importlib.util.spec_from_loader(name, _MissingNotebookLoader(name, self.folder))
        return importlib.util.spec_from_loader(name, _NotebookLoader(notebook), origin=str(notebook))


def import_notebooks(names, folder: str | Path = ".") -> NotebookFinder:
    """Let ``import NAME`` of these exercise names find ``NAME.ipynb`` in ``folder`` (default: the
    notebook's own)."""
    folder = Path(folder).resolve()
    for finder in sys.meta_path:
        if isinstance(finder, NotebookFinder) and finder.folder == folder:
            finder.names = tuple(dict.fromkeys((*finder.names, *names)))
            return finder
    finder = NotebookFinder(folder, tuple(names))
    sys.meta_path.insert(0, finder)
    return finder


@contextlib.contextmanager
def _reference_view(course: Course):
    """For a moment, plain module names mean the reference files, not the sibling notebooks."""
    from attnlab.reference import reference_names

    finders = [f for f in sys.meta_path if isinstance(f, NotebookFinder)]
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


_RESULTS: dict[tuple[int, str], dict[str, TestResult]] = {}


def run_hidden_file(course: Course, test_file: str, namespace: dict) -> dict[str, TestResult]:
    """Run one hidden test file against ``namespace``; its results by node id."""
    from attnlab.grading.suite import run_suite
    from attnlab.reference import Reference

    module = test_file.removeprefix("test_").removesuffix(".py")
    if module not in course.modules:
        raise CourseError(f"no exercise file for hidden tests {test_file}")
    # The reference, the catalogue and the hidden tests all import plain module names.
    with _reference_view(course):
        reference = Reference(course)
        reference.preload([f for m in (*course.modules_before(module), module) for f in course.functions_in(m)])
        plugin = run_suite(course, [course.hidden_tests_dir / test_file], NamespaceBackend(course, namespace, reference), reference)
    return dict(zip(plugin.nodeids, plugin.results))  # node ids relative to hidden_tests/, as exported


def hidden_test(nodeid: str, namespace: dict, course: str | None = None) -> None:
    """nbgrader's autograded cell: pass, or fail with the grader's feedback for this hidden test."""
    root = os.environ.get("ATTNLAB_COURSE") or course
    if not root:
        raise CourseError("hidden tests need the course: set ATTNLAB_COURSE")
    loaded = Course.load(Path(root))
    test_file = nodeid.split("::", 1)[0]
    key = (id(namespace), test_file)
    if key not in _RESULTS:
        _RESULTS[key] = run_hidden_file(loaded, test_file, namespace)
    result = _RESULTS[key].get(nodeid)
    if result is None:
        raise CourseError(f"no hidden test {nodeid} (was the course changed after the export?)")
    if result.outcome is not Outcome.PASSED:
        raise AssertionError(f"{result.name}: {result.outcome.value}\n\n{result.feedback}")
    print(f"passed: {result.name}")
