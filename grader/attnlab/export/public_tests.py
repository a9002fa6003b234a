"""The public tests as notebook cells: the worked examples, for students to run in Jupyter.

nbgrader courses put visible tests under each exercise. ``public_test_cell`` turns a file of
``exercises/tests/`` into the code of such a cell: the same test functions, then a line that runs
them all and says which passed. The notebook defines the functions under test, so the test file's
import of them goes; its checks (``attnlab.expect``) come from ``public_checks.py``, which
``checks_module`` writes from the engine's own source (with ``attnlab.wording``, which it uses)
so that the student's Jupyter needs numpy and nothing of attnlab. A test file that uses more of
pytest than ``importorskip`` is refused by name: a notebook has no pytest to run it. The probe
book's tests (``probe_tests``) stay out of the cell: they are ``attnlab check``'s, and need it.
"""

from __future__ import annotations

import ast
import inspect

from attnlab.course import Course, CourseError
from attnlab.wording import count

CHECKS_MODULE = "public_checks"
"""The module name of the standalone checks beside the notebooks."""


def importorskip(name: str, reason: str = ""):
    """``pytest.importorskip`` for a notebook: the module, or an error that says what to install."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        raise ModuleNotFoundError(reason or f"these tests need {name}") from None


def run_public_tests(tests) -> None:
    """Run each test function, print what it checks with a mark, and fail the cell if any failed."""
    failed = []
    for test in tests:
        said = (test.__doc__ or test.__name__).strip().splitlines()[0]
        try:
            test()
        except NotImplementedError:
            failed.append(test.__name__)
            print(f"- not implemented yet: {said}")
        except Exception as error:  # noqa: BLE001 - each test's failure is told, and the next one runs
            failed.append(test.__name__)
            print(f"✗ {said}\n    {type(error).__name__}: {error}")
        else:
            print(f"✓ {said}")
    if failed:
        raise AssertionError(f"{len(failed)} of {count(len(tests), 'public test')} did not pass: {', '.join(failed)}")


def _body(module) -> list[str]:
    """A module's statements as source, without its docstring, ``__future__`` and attnlab imports."""
    source = inspect.getsource(module)
    tree = ast.parse(source)
    kept = []
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue
        if isinstance(node, ast.ImportFrom) and (
            node.module == "__future__" or (node.module or "").startswith("attnlab")
        ):
            continue
        start = node.decorator_list[0].lineno if getattr(node, "decorator_list", None) else node.lineno
        kept.append("\n".join(source.splitlines()[start - 1 : node.end_lineno]))
    return kept


def checks_module() -> str:
    """The source of ``public_checks.py``: attnlab's checks, and the runner of the public tests."""
    from attnlab import expect, wording

    parts = [
        '"""Checks for the public tests in the notebooks (written by `attnlab export nbgrader`; needs only numpy)."""',
        "from __future__ import annotations",
        *_body(wording),
        *_body(expect),
        "\n".join(["import importlib", "", inspect.getsource(importorskip).rstrip()]),
        inspect.getsource(run_public_tests).rstrip(),
    ]
    return "\n\n\n".join(parts) + "\n"


class _Rewrite(ast.NodeTransformer):
    """``pytest.importorskip`` becomes the checks module's own; any other use of pytest is refused."""

    def __init__(self, path: str):
        self.path = path

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "pytest":
            if node.attr != "importorskip":
                raise CourseError(
                    f"{self.path} uses pytest.{node.attr}, which a notebook cannot run: use plain asserts or attnlab.expect"
                )
            return ast.copy_location(ast.Name("importorskip", ast.Load()), node)
        return self.generic_visit(node)


PROBE_BOOK_MODULE = "attnlab.check.probe_book"


def _calls_the_probe_book(node: ast.stmt) -> bool:
    """Whether ``node`` is ``name = probe_tests(...)``, the public tests' line that reads the probe book."""
    return (
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "probe_tests"
    )


def public_test_cell(course: Course, module: str) -> str | None:
    """The code of the notebook cell with ``module``'s public tests, or None when it has none."""
    path = course.exercises_dir / "tests" / f"test_{module}.py"
    if not path.is_file():
        return None
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    rewrite = _Rewrite(str(path))
    body, checks, tests = [], {"run_public_tests"}, []
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue  # the file's docstring
        if isinstance(node, ast.Import) and [a.name for a in node.names] == ["pytest"]:
            continue
        if isinstance(node, ast.ImportFrom) and node.module in course.modules:
            continue  # the notebook defines them
        if isinstance(node, ast.ImportFrom) and node.module == PROBE_BOOK_MODULE:
            continue  # the probe book's tests need attnlab's check, which a notebook does not have
        if _calls_the_probe_book(node):
            continue
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("attnlab"):
            if node.module != "attnlab.expect":
                raise CourseError(
                    f"{path} imports {node.module}, which the notebooks do not have (only attnlab.expect's checks)"
                )
            checks.update(alias.name for alias in node.names)
            continue
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            tests.append(node.name)
        uses_pytest = any(isinstance(n, ast.Name) and n.id == "pytest" for n in ast.walk(node))
        start = node.decorator_list[0].lineno if getattr(node, "decorator_list", None) else node.lineno
        body.append(ast.unparse(rewrite.visit(node)) if uses_pytest else "\n".join(lines[start - 1 : node.end_lineno]))
    if not tests:
        return None
    if any("importorskip" in line for line in body):
        checks.add("importorskip")
    header = f"from {CHECKS_MODULE} import {', '.join(sorted(checks))}"
    return "\n\n".join([header, *body, f"run_public_tests([{', '.join(tests)}])"]) + "\n"
