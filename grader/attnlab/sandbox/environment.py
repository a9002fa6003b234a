"""What student code may import in the sandbox: the course's libraries, and the files behind them.

A course names the libraries its students may import besides Python's standard library: numpy
always, what a track needs (``[course.needs]``) and its own ``[course] packages``.
``SandboxEnvironment.for_course`` finds the installed files of each (the top-level entries of the
distribution that provides it, and of every distribution that one requires) and refuses what is
not an installed package of this interpreter's site-packages. The fork server then sees exactly
these files, read-only, and nothing else installed: bound into bubblewrap's sandbox, or linked
into a folder of their own without it, so an import works or fails the same in every mode.
"""

from __future__ import annotations

import functools
import importlib.metadata
import site
import sys
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from attnlab.course import Course, CourseError

# What the engine itself needs inside: the wire writes its headers with orjson.
ENGINE_LIBRARIES = ("numpy", "orjson")
# Distributions never shown to student code, whatever a course or a requirement says.
_NEVER = {"attnlab"}


@dataclass(frozen=True)
class SandboxEnvironment:
    """The libraries a fork server offers student code, and what it runs once after importing one."""

    libraries: tuple[str, ...] = ("numpy",)
    """Top-level names student code may import besides the standard library, as the course lists them."""
    preimport: tuple[str, ...] = ()
    """Those the fork server imports at its start, so every worker inherits them (the course's
    ``packages``; a track's heavy library is imported when a file of that track is first graded)."""
    entries: tuple[Path, ...] = ()
    """The site-packages entries (folders and files) behind ``libraries`` and the engine's own
    needs: all the sandbox shows of what is installed."""
    warmups: dict[str, str] = field(default_factory=dict)
    """Per library, the source the fork server runs once after importing it."""

    @classmethod
    def for_libraries(cls, libraries: tuple[str, ...] = ("numpy",), *, required: tuple[str, ...] = (), preimport: tuple[str, ...] = (), warmups: dict[str, str] | None = None) -> "SandboxEnvironment":
        """The environment offering ``libraries``: those in ``required`` must be installed (a
        ``CourseError`` says how to install one that is not); the others are offered if they are."""
        names = tuple(dict.fromkeys((*ENGINE_LIBRARIES, *libraries)))
        entries: dict[Path, None] = {}
        for name in names:
            distributions = _providers().get(name)
            if not distributions:
                if name in required:
                    raise CourseError(f"the course lets students import {name}, which is not installed where the grader runs ({sys.executable} -m pip install {name})")
                continue
            for distribution in _with_requirements(distributions, name):
                entries.update(dict.fromkeys(_entries_of(distribution, name)))
        return cls(libraries=tuple(libraries), preimport=tuple(preimport), entries=tuple(entries), warmups=dict(warmups or {}))

    @classmethod
    def for_course(cls, course: Course) -> "SandboxEnvironment":
        """What ``course`` lets its students import, with its warm-ups."""
        warmups = {library: path.read_text(encoding="utf-8") for library, path in (course.warmups or {}).items()}
        return cls.for_libraries(course.libraries, required=course.packages, preimport=course.packages, warmups=warmups)

    def covers(self, other: "SandboxEnvironment") -> bool:
        """Does this environment offer all that ``other`` does?"""
        return set(other.libraries) <= set(self.libraries) and set(other.entries) <= set(self.entries)

    def as_config(self) -> dict:
        """What the fork server is told at its start (plain data)."""
        return {"libraries": list(self.libraries), "preimport": list(self.preimport), "warmups": self.warmups}


@functools.cache
def _providers() -> dict[str, list[str]]:
    """Top-level import name -> the distributions installed for this interpreter that provide it."""
    return importlib.metadata.packages_distributions()


@functools.cache
def _site_folders() -> tuple[Path, ...]:
    folders = [*site.getsitepackages(), site.getusersitepackages()]
    return tuple(Path(f).resolve() for f in folders if Path(f).is_dir())


def _with_requirements(distributions: list[str], name: str) -> list[importlib.metadata.Distribution]:
    """``distributions`` and every distribution they require (markers evaluated here, no extras),
    that is installed; a requirement that is not installed is one its library can do without."""
    found: dict[str, importlib.metadata.Distribution] = {}
    waiting = list(distributions)
    while waiting:
        wanted = canonicalize_name(waiting.pop())
        if wanted in found:
            continue
        if wanted in _NEVER:
            raise CourseError(f"{name} cannot be offered to students: it is, or needs, the grader itself ({wanted})")
        try:
            distribution = importlib.metadata.distribution(wanted)
        except importlib.metadata.PackageNotFoundError:
            continue
        found[wanted] = distribution
        for line in distribution.requires or ():
            try:
                requirement = Requirement(line)
            except InvalidRequirement:
                continue
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                waiting.append(requirement.name)
    return list(found.values())


def _entries_of(distribution: importlib.metadata.Distribution, name: str) -> list[Path]:
    """The top-level site-packages entries ``distribution`` installed (its packages, modules,
    bundled libraries and metadata), each checked to be a real entry of a site-packages folder."""
    location = Path(distribution.locate_file("")).resolve()
    if location not in _site_folders():
        raise CourseError(f"{name} cannot be offered to students: {distribution.name} is not installed in site-packages ({location}); install it with pip, not as a path or an editable project")
    tops = {file.parts[0] for file in distribution.files or () if file.parts and file.parts[0] not in ("..", "__pycache__")}
    entries = []
    for top in sorted(tops):
        path = location / top
        if path.suffix == ".pth" or top.startswith("__editable__") or not (path.exists() or path.is_symlink()):
            continue  # site's start-up files: the sandbox's Python does not run them
        if path.is_symlink() or path.resolve().parent != location:
            raise CourseError(f"{name} cannot be offered to students: {path} leads out of site-packages")
        entries.append(path)
    return entries
