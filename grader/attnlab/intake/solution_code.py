"""What grading runs of a notebook: the code that defines the student's functions, and what it sets aside.

A notebook mixes solution code with exploration: plots, prints, a cell that tries a function on
an example. Graded as one file, ``import matplotlib.pyplot as plt`` in the first cell (a package
the sandbox does not hold) or a ``plt.show()`` would make every function score 0. So grading
runs the definitions (functions and classes, whole) and the statements that bind the exercise's
names (``softmax = stable_softmax``); then, of the other top-level statements, those that bind or
change a name some kept code reads from the module (its imports, its constants, ``TABLE[i] =
...``, ``np.random.seed(0)``), found with ``symtable``, so a function's own local variable of the
same name does not count. The rest is set aside and named in ``skipped``, which the report shows
the student.

In a notebook written by ``attnlab export nbgrader``, the course's own cells (nbgrader's graded
and locked cells: the tests) are never the student's code and are left out whole; its locked
set-up cell (the file's imports) is kept like the student's code, and what it sets aside (the
line that lets Jupyter import the sibling notebooks) is not the student's to be told about.

Everything here runs in the grader's process on untrusted text, so it is bounded: a notebook
with more code than ``MAX_SORTED_BYTES`` is not sorted but kept whole, as a script would be,
and its note says so.
"""

from __future__ import annotations

import ast
import symtable
from collections import defaultdict
from dataclasses import dataclass

SETUP_PREFIX = "setup-"
"""grade_id prefix of an exported notebook's locked set-up cell (its imports)."""
MAX_SORTED_BYTES = 64 << 10
"""A notebook's code at most, for sorting it into solution and exploration: the syntax trees of
this much hostile code stay within some 40 MiB and a second in the grader's process (the
largest reference file is under 5 KiB)."""
SHOWN_SKIPS = 4
"""Set-aside statements named in a note at most (the rest are counted)."""
_PARSE_FAILURES = (SyntaxError, ValueError, RecursionError, MemoryError)


@dataclass(frozen=True)
class CodeCell:
    """One code cell of a notebook, as the student's notebook holds it."""

    number: int
    """Its place among all the notebook's cells, from 1 (as Jupyter lists them)."""
    source: str
    """Its code, magics and shell lines (``%matplotlib``, ``!pip``) dropped."""
    nbgrader: dict | None
    """Its nbgrader metadata, when it has any."""


@dataclass(frozen=True)
class SolutionCode:
    """The part of a notebook that grading runs."""

    code: str
    """The kept statements, in the notebook's order, as one Python file."""
    skipped: str | None
    """One line for the student naming what was set aside, or None when nothing of theirs was."""
    not_run: str | None = None
    """Of ``skipped``, the cells not run as no function uses them (``cell 3 `plt.show()```), alone:
    the notes of a submission's notebooks say once, not once each, why they were not run."""
    problems: str | None = None
    """Of ``skipped``, the rest (cells that are not Python, a notebook too large to sort)."""


def _kind(cell: CodeCell) -> str:
    """``student`` (theirs: solution cells, cells they added), ``setup`` or ``course`` (its tests)."""
    meta = cell.nbgrader
    if not meta or meta.get("solution"):
        return "student"
    if str(meta.get("grade_id", "")).startswith(SETUP_PREFIX):
        return "setup"
    return "course" if meta.get("grade") or meta.get("locked") else "student"


@dataclass
class _Statement:
    cell: CodeCell
    node: ast.stmt
    text: str
    binds: frozenset[str]
    """Names it binds or changes in the module (``x = ...``, ``x[0] = ...``, ``x.append(...)``)."""
    reads: frozenset[str]
    always: bool  # a definition, or an import that binds everything (``from x import *``)


def _module_names(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(names a statement binds in the module, names it or any function in it reads from the module)."""
    table = symtable.symtable(text, "<cell>", "exec")
    binds = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    reads = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    nested = list(table.get_children())
    while nested:
        scope = nested.pop()
        reads |= {s.get_name() for s in scope.get_symbols() if s.is_global()}
        nested.extend(scope.get_children())
    return frozenset(binds), frozenset(reads)


def _changed(node: ast.stmt) -> set[str]:
    """The names whose object a statement changes: ``x[i] = ...``, ``x.a += ...``, ``x.update(...)``
    (not inside the functions and classes it defines, which run later)."""
    changed, stack = set(), [node]
    while stack:
        current = stack.pop()
        targets = []
        if isinstance(current, (ast.Assign, ast.Delete)):
            targets = current.targets
        elif isinstance(current, (ast.AugAssign, ast.AnnAssign)):
            targets = [current.target]
        elif isinstance(current, ast.Expr) and isinstance(current.value, ast.Call):
            targets = [current.value.func]
        for target in targets:
            while isinstance(target, (ast.Subscript, ast.Attribute)):
                target = target.value
                if isinstance(target, ast.Name):
                    changed.add(target.id)
        stack.extend(
            child
            for child in ast.iter_child_nodes(current)
            if isinstance(child, ast.stmt)
            and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        )
    return changed


def _statements(cell: CodeCell) -> list[_Statement]:
    tree = ast.parse(cell.source)
    lines = cell.source.splitlines()
    spans = [
        ((n.decorator_list[0].lineno if getattr(n, "decorator_list", None) else n.lineno), n.end_lineno)
        for n in tree.body
    ]
    statements = []
    for index, node in enumerate(tree.body):
        start, end = spans[index]
        shares_a_line = (index and spans[index - 1][1] >= start) or (
            index + 1 < len(spans) and spans[index + 1][0] <= end
        )
        text = ast.unparse(node) if shares_a_line else "\n".join(lines[start - 1 : end])
        binds, reads = _module_names(text)
        definition = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        star = isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        statements.append(_Statement(cell, node, text, binds | _changed(node), reads, definition or star or future))
    return statements


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 60 else line[:57] + "..."


def solution_code(cells: list[CodeCell], name: str, exercise_names: tuple[str, ...] = ()) -> SolutionCode:
    """The code of ``cells`` (a notebook's code cells, in order) that grading runs; ``name`` (the
    notebook's file name) starts the note of what was set aside; ``exercise_names`` (the
    functions and classes the course grades in it) are kept however they are bound."""
    ours = [c for c in cells if _kind(c) != "course"]
    if sum(len(c.source.encode("utf-8", "surrogatepass")) for c in ours) > MAX_SORTED_BYTES:
        code = "\n\n".join(c.source for c in ours) + "\n"
        problem = (
            f"{name}: too large to sort its functions from the rest, so all of its code cells were run as one file"
        )
        return SolutionCode(code, problem, None, problem)
    statements: list[_Statement] = []
    unreadable: list[str] = []
    for cell in ours:
        try:
            statements.extend(_statements(cell))
        except _PARSE_FAILURES as error:
            if _kind(cell) == "student":
                line = getattr(error, "lineno", None)
                where = f" (line {line}: {error.msg})" if isinstance(error, SyntaxError) and line else ""
                unreadable.append(f"cell {cell.number} is not valid Python{where}")
    # Keep what is always kept, then, name by name, whatever binds a name kept code reads: a
    # worklist, so each statement is looked at once however long the chain.
    binders: dict[str, list[int]] = defaultdict(list)
    for index, statement in enumerate(statements):
        for bound in statement.binds:
            binders[bound].append(index)
    kept = [s.always for s in statements]
    wanted = [*exercise_names, *(n for s in statements if s.always for n in s.reads)]
    seen: set[str] = set()
    while wanted:
        needed = wanted.pop()
        if needed in seen:
            continue
        seen.add(needed)
        for index in binders.get(needed, ()):
            if not kept[index]:
                kept[index] = True
                wanted.extend(statements[index].reads)
    code = "\n\n".join(s.text for s, keep in zip(statements, kept) if keep) + "\n"
    set_aside = [
        f"cell {s.cell.number} `{_first_line(s.text)}`"
        for s, keep in zip(statements, kept)
        if not keep and _kind(s.cell) == "student"
    ]
    if not set_aside and not unreadable:
        return SolutionCode(code, None)
    parts = unreadable[:SHOWN_SKIPS] + (
        [f"and {len(unreadable) - SHOWN_SKIPS} more cells that are not valid Python"]
        if len(unreadable) > SHOWN_SKIPS
        else []
    )
    problems = f"{name}: " + "; ".join(parts) if parts else None
    not_run = None
    if set_aside:
        shown = "; ".join(set_aside[:SHOWN_SKIPS]) + (
            f"; and {len(set_aside) - SHOWN_SKIPS} more" if len(set_aside) > SHOWN_SKIPS else ""
        )
        parts.append(f"not run, as no function of yours uses it (plots, prints, trying things out): {shown}")
        not_run = f"{name} {shown}"
    return SolutionCode(code, f"{name}: " + "; ".join(parts), not_run, problems)
