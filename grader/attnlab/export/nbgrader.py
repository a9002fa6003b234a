"""``attnlab export nbgrader``: the course as an nbgrader course, one notebook per exercise file.

Each notebook, written with nbformat, holds: the file's lesson (its docstring) in
markdown; a locked set-up cell with its imports (``notebook_imports``, beside the
notebooks, lets them find the sibling notebooks); per function, a markdown cell with its
docstring and shape passport and a solution cell (the reference, between nbgrader's own
``### BEGIN SOLUTION`` markers, hints kept above them); a locked cell with the file's
public tests (``public_tests``: the worked examples, which students run); then one
autograded cell per hidden test of ``attnlab grade``, with the same points, whose body
sits in a ``### BEGIN HIDDEN TESTS`` block that nbgrader removes from what students get.

Students need only numpy (and torch for its track) in their Jupyter: the two modules the
notebooks import, ``notebook_imports.py`` and ``public_checks.py``, are written beside them
and nbgrader releases them with the notebooks. Only the hidden tests, which run in the
instructor's nbgrader, import attnlab.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from attnlab.course import Course, CourseError
from attnlab.export.public_tests import CHECKS_MODULE, checks_module, public_test_cell
from attnlab.wording import count
from attnlab.export.stubs import BEGIN, HINT
from attnlab.intake.solution_code import SETUP_PREFIX

NBGRADER_CONFIG = '''# nbgrader configuration for the attnlab course, written by `attnlab export nbgrader`.
c = get_config()  # noqa: F821 - nbgrader provides it
c.CourseDirectory.course_id = {course_id!r}
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
# The hidden tests run the whole file's suite at the first autograded cell (hypothesis and all).
c.ExecutePreprocessor.timeout = 600
'''

NOTEBOOK_IMPORTS = Path(__file__).with_name("notebook_imports.py")
"""Copied beside the notebooks as it is: they import each other with it, with nothing but Python."""

_KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def _meta(grade_id: str, *, grade=False, solution=False, locked=False, points=None) -> dict:
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def _hints_above_regions(source: str) -> str:
    """nbgrader drops the whole solution region, so ``### HINT:`` lines move above it as comments."""
    lines, out, pending = source.splitlines(), [], []
    region_at = None
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(BEGIN):
            region_at = len(out)
            out.append(line)
        elif stripped.startswith(HINT) and region_at is not None:
            indent = line[: len(line) - len(line.lstrip())]
            pending.append(f"{indent}# Hint: {stripped[len(HINT) :].strip()}")
            out[region_at:region_at] = pending
            region_at += len(pending)
            pending = []
        else:
            if stripped.startswith("### END SOLUTION"):
                region_at = None
            out.append(line)
    return "\n".join(out)


def hidden_items(course: Course, module: str) -> list[tuple[str, str, float]]:
    """(node id, test name, points) of every hidden test item of ``module``, in file order."""
    from attnlab.grading.plugin import GradingPlugin
    from attnlab.grading.hidden_suite import hidden_pytest_args
    from attnlab.points import load_points
    from attnlab.pytest_runs import run_captured

    grading = GradingPlugin(course, None, None, load_points(course.hidden_tests_dir), lambda: "")
    collected: list[tuple[str, str, float]] = []

    class Collector:
        @pytest.hookimpl(trylast=True)  # after GradingPlugin has checked names and shared out points
        def pytest_collection_modifyitems(self, config, items):
            collected.extend(
                (item.nodeid, grading.display_name(item), grading.item_points[item.nodeid]) for item in items
            )

    test_file = course.hidden_tests_dir / f"test_{module}.py"
    args = [*hidden_pytest_args(course, [test_file]), "--collect-only", "-q"]
    exit_code, output = run_captured(args, [grading, Collector()])
    if exit_code != pytest.ExitCode.OK or grading.internal_errors:
        raise CourseError(
            f"cannot collect the hidden tests of {module}: {output.strip().splitlines()[-1:] or exit_code}"
        )
    return collected


def cell_points(items: list[tuple[str, str, float]]) -> list[tuple[str, str, float]]:
    """``items`` with points rounded to the 6 decimals nbgrader keeps, the last case of each test
    taking what rounding left, so that a test's cases add up to its points (1/3 + 1/3 + 1/3 as
    0.333333 + 0.333333 + 0.333334, never 0.999999)."""
    by_test: dict[str, list[int]] = {}
    for index, (nodeid, _, _) in enumerate(items):
        by_test.setdefault(nodeid.split("[", 1)[0], []).append(index)
    rounded = [round(points, 6) for _, _, points in items]
    for indices in by_test.values():
        total = sum(items[i][2] for i in indices)
        last = indices[-1]
        rounded[last] = round(total - sum(rounded[i] for i in indices[:-1]), 6)
    return [(nodeid, name, points) for (nodeid, name, _), points in zip(items, rounded)]


def notebook_for(course: Course, module: str, course_path: str):
    """The nbgrader source notebook of one exercise file (an ``nbformat`` notebook)."""
    import nbformat.v4 as nbf

    path = course.solutions_dir / f"{module}.py"
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines()
    body = list(tree.body)
    docstring = ast.get_docstring(tree) or ""
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]
    definitions = [n for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    first_def = (
        min((n.decorator_list[0].lineno if n.decorator_list else n.lineno) for n in definitions)
        if definitions
        else len(lines) + 1
    )
    header = "\n".join(lines[(body[0].lineno - 1 if body else 0) : first_def - 1]).strip()
    cells = [nbf.new_markdown_cell(f"# `{module}.py`\n\n{docstring}", metadata=_meta(f"lesson-{module}", locked=True))]
    earlier = list(course.modules_before(module))
    setup = ""
    if earlier:
        setup += (
            f"# Lets `from {earlier[0]} import ...` load the notebook {earlier[0]}.ipynb next to this one\n"
            "# (notebook_imports.py, beside the notebooks, needs only Python).\n"
            f"from notebook_imports import import_notebooks\n\nimport_notebooks({earlier!r})\n\n"
        )
    setup += header
    cells.append(nbf.new_code_cell(setup.strip(), metadata=_meta(f"{SETUP_PREFIX}{module}", locked=True)))
    for node in definitions:
        start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        doc = ast.get_docstring(node) or ""
        cells.append(
            nbf.new_markdown_cell(
                f"## The {kind} `{node.name}`\n\n```text\n{doc}\n```",
                metadata=_meta(f"doc-{module}-{node.name}", locked=True),
            )
        )
        end = node.end_lineno
        # The closing ``### END SOLUTION`` is a comment, outside the syntax tree: take the indented
        # lines that follow the definition too.
        while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t")):
            end += 1
        code = _hints_above_regions("\n".join(lines[start:end]).rstrip())
        cells.append(nbf.new_code_cell(code, metadata=_meta(f"{module}-{node.name}", solution=True)))
    public = public_test_cell(course, module)
    if public is not None:
        cells.append(
            nbf.new_markdown_cell(
                "## Check your work\n\nThe cell below runs the public tests, the worked examples: run it after your code. "
                "They are not graded; the hidden tests below check much more.",
                metadata=_meta(f"public-{module}", locked=True),
            )
        )
        cells.append(nbf.new_code_cell(public.strip(), metadata=_meta(f"public-tests-{module}", locked=True)))
    cells.append(
        nbf.new_markdown_cell(
            "## Hidden tests\n\nEach cell below is one hidden test of the course's grader, worth the points nbgrader shows. "
            "They are run when your notebook is graded.",
            metadata=_meta(f"tests-{module}", locked=True),
        )
    )
    for nodeid, name, points in cell_points(hidden_items(course, module)):
        grade_id = "test-" + re.sub(r"[^A-Za-z0-9_-]+", "_", nodeid.removeprefix(f"test_{module}.py::"))
        code = (
            f"# {name}  ({count(points, 'point')})\n"
            "### BEGIN HIDDEN TESTS\n"
            "from attnlab.export.notebook import hidden_test_failure\n\n"
            f"failure = hidden_test_failure({nodeid!r}, globals(), course={course_path!r})\n"
            "if failure:  # raised here, so that the cell shows the grader's feedback and none of its code\n"
            "    raise AssertionError(failure)\n"
            "### END HIDDEN TESTS"
        )
        cells.append(
            nbf.new_code_cell(
                code, metadata=_meta(f"{module}-{grade_id}"[:120], grade=True, locked=True, points=points)
            )
        )
    notebook = nbf.new_notebook(cells=cells, metadata={"kernelspec": _KERNELSPEC, "language_info": {"name": "python"}})
    return notebook


def export_course(course: Course, out: Path, assignment: str = "attnlab") -> list[Path]:
    """Write an nbgrader course to ``out``: ``nbgrader_config.py``, and ``source/ASSIGNMENT/`` with a
    notebook per exercise file and the two modules they import (released with them)."""
    import nbformat

    if not course.hidden_tests_dir.is_dir():
        raise CourseError(f"{course.hidden_tests_dir} is missing: the export needs the hidden tests")
    if not re.fullmatch(r"[A-Za-z0-9_-]+", assignment):
        raise CourseError(f"assignment name {assignment!r}: use letters, digits, '-' and '_' only")
    target = out / "source" / assignment
    if target.exists() and any(target.iterdir()):
        raise CourseError(f"{target} exists and is not empty; export to a new folder")
    target.mkdir(parents=True, exist_ok=True)
    (out / "nbgrader_config.py").write_text(
        NBGRADER_CONFIG.format(course_id=re.sub(r"[^A-Za-z0-9_-]", "", course.root.name) or "attnlab"), encoding="utf-8"
    )
    (target / "notebook_imports.py").write_text(NOTEBOOK_IMPORTS.read_text(encoding="utf-8"), encoding="utf-8")
    (target / f"{CHECKS_MODULE}.py").write_text(checks_module(), encoding="utf-8")
    written = []
    for module in course.modules:
        notebook = notebook_for(course, module, str(course.root))
        nbformat.validate(notebook)
        path = target / f"{module}.ipynb"
        nbformat.write(notebook, str(path))
        written.append(path)
    return written
