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
import importlib.util
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
    libraries_of: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Per course file, the libraries it may import (``Course.libraries_of``); a file not named
    here may import ``libraries``."""

    @classmethod
    def for_libraries(
        cls,
        libraries: tuple[str, ...] = ("numpy",),
        *,
        required: tuple[str, ...] = (),
        preimport: tuple[str, ...] = (),
        warmups: dict[str, str] | None = None,
        libraries_of: dict[str, tuple[str, ...]] | None = None,
    ) -> "SandboxEnvironment":
        """The environment offering ``libraries``: those in ``required`` must be installed (a
        ``CourseError`` says how to install one that is not); the others are offered if they are."""
        names = tuple(dict.fromkeys((*ENGINE_LIBRARIES, *libraries)))
        entries: dict[Path, None] = {}
        for name in names:
            distributions = _providers_of(name)
            if not distributions and (own := _own_entry(name)) is not None:
                entries[own] = None  # installed without metadata (a system package): itself, without what it requires
                continue
            if not distributions:
                if name in required:
                    raise CourseError(
                        f"the course lets students import {name}, which is not installed where the grader runs ({sys.executable} -m pip install {name})"
                    )
                continue
            for distribution in _with_requirements(tuple(distributions), name):
                entries.update(dict.fromkeys(_entries_of(distribution, name)))
        return cls(
            libraries=tuple(libraries),
            preimport=tuple(preimport),
            entries=tuple(entries),
            warmups=dict(warmups or {}),
            libraries_of=dict(libraries_of or {}),
        )

    @classmethod
    def for_course(cls, course: Course) -> "SandboxEnvironment":
        """What ``course`` lets its students import, with its warm-ups."""
        warmups = {library: path.read_text(encoding="utf-8") for library, path in (course.warmups or {}).items()}
        libraries_of = {module: course.libraries_of(module) for module in course.modules}
        return cls.for_libraries(
            course.libraries,
            required=course.packages,
            preimport=course.packages,
            warmups=warmups,
            libraries_of=libraries_of,
        )

    def covers(self, other: "SandboxEnvironment") -> bool:
        """Does this environment offer all that ``other`` does, each file under the same rule?"""
        same_rule = all(self.libraries_of.get(module) == libraries for module, libraries in other.libraries_of.items())
        return set(other.libraries) <= set(self.libraries) and set(other.entries) <= set(self.entries) and same_rule

    def as_config(self) -> dict:
        """What the fork server is told at its start (plain data)."""
        return {
            "libraries": list(self.libraries),
            "preimport": list(self.preimport),
            "warmups": self.warmups,
            "libraries_of": {m: list(names) for m, names in self.libraries_of.items()},
        }


def _providers_of(name: str) -> list[str]:
    """The installed distributions that provide the top-level import ``name``: the one of the same
    name when it does (numpy, torch, einops), else the index of every distribution's (yaml is
    PyYAML's), which reads each one's metadata and takes a second."""
    try:
        if name in _tops(canonicalize_name(name)):
            return [name]
    except importlib.metadata.PackageNotFoundError:
        pass
    return _all_providers().get(name, [])


@functools.cache
def _all_providers() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


@functools.cache
def _tops(wanted: str) -> frozenset[str]:
    """The top-level names (a package, a module without its suffix) the distribution ``wanted`` installed."""
    record = importlib.metadata.distribution(wanted).read_text("RECORD") or ""
    return frozenset(
        line.split(",", 1)[0].split("/", 1)[0].split(".", 1)[0] for line in record.splitlines() if line.strip()
    )


@functools.cache
def _site_folders() -> tuple[Path, ...]:
    folders = [*site.getsitepackages(), site.getusersitepackages()]
    return tuple(Path(f).resolve() for f in folders if Path(f).is_dir())


def _own_entry(name: str) -> Path | None:
    """The site-packages entry the import of ``name`` would load (None: none, or not in site-packages)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    origin = Path(spec.origin).resolve() if spec is not None and spec.origin else None
    for folder in _site_folders() if origin is not None else ():
        if origin.is_relative_to(folder) and origin != folder:
            return folder / origin.relative_to(folder).parts[0]
    return None


@functools.cache
def _with_requirements(distributions: tuple[str, ...], name: str) -> tuple[str, ...]:
    """``distributions`` and every distribution they require (markers evaluated here, no extras),
    that is installed, by name; a requirement that is not installed is one its library can do
    without. Kept for the grading process: each submission's sandbox asks again."""
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
    return tuple(found)


@functools.cache
def _entries_of(wanted: str, name: str) -> tuple[Path, ...]:
    """The top-level site-packages entries the distribution ``wanted`` installed (its packages,
    modules, bundled libraries and metadata), each checked to be a real entry of a site-packages
    folder. Read off its RECORD's text: parsing its every file (torch has thousands) took seconds."""
    distribution = importlib.metadata.distribution(wanted)
    location = Path(distribution.locate_file("")).resolve()
    if location not in _site_folders():
        raise CourseError(
            f"{name} cannot be offered to students: {distribution.name} is not installed in site-packages ({location}); install it with pip, not as a path or an editable project"
        )
    record = distribution.read_text("RECORD")
    if record is not None:
        tops = {line.split(",", 1)[0].split("/", 1)[0] for line in record.splitlines() if line.strip()}
    else:  # an older install (a distribution's own .egg-info): importlib's own reading of its files
        tops = {file.parts[0] for file in distribution.files or () if file.parts}
    tops -= {"..", "__pycache__", ""}
    entries = []
    for top in sorted(tops):
        path = location / top
        if path.suffix == ".pth" or top.startswith("__editable__") or not (path.exists() or path.is_symlink()):
            continue  # site's start-up files: the sandbox's Python does not run them
        if path.is_symlink() or path.resolve().parent != location:
            raise CourseError(f"{name} cannot be offered to students: {path} leads out of site-packages")
        entries.append(path)
    return tuple(entries)
