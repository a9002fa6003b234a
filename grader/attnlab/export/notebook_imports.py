"""Lets an exercise notebook import the ones before it by name: ``from softmax import softmax``.

``attnlab export nbgrader`` puts this file beside the course's notebooks, so students get it with
them. It needs nothing but Python (no attnlab in the student's Jupyter). After
``import_notebooks(["softmax"])``, ``import softmax`` runs the code cells of ``softmax.ipynb`` in
the same folder (its set-up and the student's cells, never the course's test cells) as a module,
as the course's ``.py`` files import each other.

A notebook that is not there (nbgrader autogrades one notebook at a time, in a folder it fills as
it goes) still imports: its functions exist, and say so when called. Grading puts the reference in
their place, so it never calls them.
"""

import importlib.abc
import importlib.util
import json
import os
import sys

SETUP_PREFIX = "setup-"


def _is_course_test(cell):
    """nbgrader's graded or locked code cells, but the set-up: the course's tests, not code to import."""
    metadata = cell.get("metadata")
    meta = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    if not isinstance(meta, dict) or meta.get("solution"):
        return False
    if str(meta.get("grade_id", "")).startswith(SETUP_PREFIX):
        return False
    return bool(meta.get("grade") or meta.get("locked"))


def notebook_code(path):
    """The code a notebook defines, as one Python file (magics and shell lines dropped)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as error:
        if os.path.islink(path):
            raise ImportError(f"{os.path.basename(path)} is a symbolic link: copy the notebook itself here") from None
        raise ImportError(f"{os.path.basename(path)} cannot be read: {error.strerror}") from None
    with os.fdopen(descriptor, encoding="utf-8") as file:
        notebook = json.load(file)
    chunks = []
    for cell in notebook.get("cells", []):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code" or _is_course_test(cell):
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        chunks.append("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
    return "\n\n".join(chunks) + "\n"


class _NotebookLoader(importlib.abc.Loader):
    def __init__(self, path):
        self.path = path

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(compile(notebook_code(self.path), self.path, "exec"), module.__dict__)


class _MissingNotebookLoader(importlib.abc.Loader):
    def __init__(self, name, folder):
        self.name, self.folder = name, folder

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        name, folder = self.name, self.folder

        def missing(attribute):
            # Python's and IPython's own questions (__file__, _repr_html_, ...) get the usual answer.
            if attribute.startswith("_"):
                raise AttributeError(f"module {name!r} has no attribute {attribute!r}")

            def unavailable(*args, **kwargs):
                raise RuntimeError(
                    f"{name}.ipynb is not next to this notebook (in {folder}), so {name}.{attribute} cannot run here"
                )

            unavailable.__name__ = attribute
            return unavailable

        module.__getattr__ = missing


class NotebookFinder(importlib.abc.MetaPathFinder):
    """Finds ``NAME.ipynb`` in one folder for ``import NAME``, for the course's exercise names."""

    exercise_notebooks = True  # how attnlab's grading finds it, to set it aside while the reference is imported

    def __init__(self, folder, names):
        self.folder, self.names = folder, tuple(names)
        self.enabled = True

    def find_spec(self, name, path=None, target=None):
        if not self.enabled or path is not None or name not in self.names:
            return None
        notebook = os.path.join(self.folder, f"{name}.ipynb")
        if not os.path.lexists(notebook):  # a link is found, and refused when it is loaded
            return importlib.util.spec_from_loader(name, _MissingNotebookLoader(name, self.folder))
        return importlib.util.spec_from_loader(name, _NotebookLoader(notebook), origin=notebook)


def import_notebooks(names, folder=None):
    """Let ``import NAME`` of these exercise names find ``NAME.ipynb`` in ``folder`` (default: the
    folder this file is in, which is the notebooks' own)."""
    folder = os.path.realpath(folder or os.path.dirname(os.path.abspath(__file__)))
    for finder in sys.meta_path:
        if getattr(finder, "exercise_notebooks", False) and finder.folder == folder:
            finder.names = tuple(dict.fromkeys((*finder.names, *names)))
            return finder
    finder = NotebookFinder(folder, names)
    sys.meta_path.insert(0, finder)
    return finder
