"""Turn reference solutions into student stubs.

A solution file marks what students write with nbgrader's markers::

    ### BEGIN SOLUTION
    ### HINT: a line that survives into the stub as a comment
    ...reference code...
    ### END SOLUTION

The region becomes ``# YOUR CODE HERE``, the hints, and a ``raise
NotImplementedError``. Everything outside the regions (signatures,
docstrings, imports) is written once, in the solution, and copied as is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from attnlab.course import CourseError

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
HINT = "### HINT:"
# Students have no solutions/ folder: the note names no path into it.
GENERATED_NOTE = "# Exercise stub of {name}, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.\n"

_DEF = re.compile(r"^\s*def\s+([A-Za-z_]\w*)\s*\(")
_CLASS = re.compile(r"^class\s+([A-Za-z_]\w*)\b")


class StubError(CourseError):
    """A solution file whose solution regions cannot be turned into a stub (a course's error: one line)."""


@dataclass(frozen=True)
class Region:
    """One solution region of a solution file: what students write."""

    function: str | None
    """The function (``Class.method`` for a method) the region is in, when it is in one."""
    begin: int
    """The line number of its ``### BEGIN SOLUTION`` marker."""
    end: int
    """The line number of its ``### END SOLUTION`` marker."""
    indent: str
    hints: tuple[str, ...]

    @property
    def code_lines(self) -> range:
        """The line numbers between the markers (hint lines among them)."""
        return range(self.begin + 1, self.end)


def solution_regions(source: str, filename: str) -> list[Region]:
    """The solution regions of one solution file's source, in order; ``StubError`` for a nested,
    unterminated or unopened one."""
    regions = []
    region_start = None  # line number of the open BEGIN marker
    indent, hints, function, owner = "", [], None, None
    for lineno, line in enumerate(source.splitlines(keepends=True), start=1):
        stripped = line.strip()
        if region_start is None and (opened := _CLASS.match(line)):
            owner = opened.group(1)
        elif region_start is None and line[:1] not in ("", " ", "\t", "\n", "#"):
            owner = None  # back at the top level: methods after this belong to no class
        match = _DEF.match(line)
        if match and region_start is None:
            method = line.startswith((" ", "\t")) and owner is not None
            function = f"{owner}.{match.group(1)}" if method else match.group(1)
        if stripped.startswith(BEGIN):
            if region_start is not None:
                raise StubError(
                    f"{filename}:{lineno}: nested {BEGIN!r} (the region opened at line {region_start} is not closed)"
                )
            region_start, hints = lineno, []
            indent = line[: len(line) - len(line.lstrip())]
        elif stripped.startswith(END):
            if region_start is None:
                raise StubError(f"{filename}:{lineno}: {END!r} without a {BEGIN!r} before it")
            regions.append(Region(function, region_start, lineno, indent, tuple(hints)))
            region_start = None
        elif region_start is not None and stripped.startswith(HINT):
            hints.append(stripped[len(HINT) :].strip())
    if region_start is not None:
        raise StubError(f"{filename}:{region_start}: {BEGIN!r} is never closed by {END!r}")
    return regions


def make_stub(source: str, filename: str) -> str:
    """Return the student stub for one solution file's source."""
    out = [GENERATED_NOTE.format(name=Path(filename).name)]
    regions = iter(solution_regions(source, filename))
    region = next(regions, None)
    for lineno, line in enumerate(source.splitlines(keepends=True), start=1):
        if region is None or lineno < region.begin:
            out.append(line)
        elif lineno == region.end:
            what = f"{region.function} is" if region.function else "this part is"
            out.append(f"{region.indent}# YOUR CODE HERE\n")
            out.extend(f"{region.indent}# Hint: {hint}\n" for hint in region.hints)
            out.append(f'{region.indent}raise NotImplementedError("{what} not implemented yet")\n')
            region = next(regions, None)
    return "".join(out)


def expected_stubs(solutions_dir: Path, modules: list[str]) -> dict[str, str]:
    """Map each exercise file name to the stub its solution generates."""
    stubs = {}
    for module in modules:
        path = solutions_dir / f"{module}.py"
        stubs[path.name] = make_stub(path.read_text(encoding="utf-8"), str(path))
    return stubs


def stale_stubs(solutions_dir: Path, exercises_dir: Path, modules: list[str]) -> list[str]:
    """Names of exercise files that are missing or differ from what their solution generates."""
    stale = []
    for name, text in expected_stubs(solutions_dir, modules).items():
        target = exercises_dir / name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            stale.append(name)
    return stale


def write_stubs(solutions_dir: Path, exercises_dir: Path, modules: list[str]) -> list[str]:
    """Regenerate every stub; return the names of the files that changed."""
    changed = stale_stubs(solutions_dir, exercises_dir, modules)
    stubs = expected_stubs(solutions_dir, modules)
    exercises_dir.mkdir(parents=True, exist_ok=True)
    for name in changed:
        (exercises_dir / name).write_text(stubs[name], encoding="utf-8")
    return changed
