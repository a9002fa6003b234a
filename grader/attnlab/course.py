"""Find a course on disk and describe it: its exercise files, their order, their functions.

A course is a folder with ``exercises/course.toml``. The instructor's copy also
has ``solutions/`` (reference code, and ``solutions/hidden_tests/``); a
student's copy does not. The engine learns which functions exist from the
source's syntax tree, so it never has to import (or ship) reference code to
know their names.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

MANIFEST = Path("exercises") / "course.toml"


class CourseError(Exception):
    """The course folder is missing or malformed; the message is one line for the user."""


@dataclass(frozen=True)
class ContractFunction:
    """One function a student writes."""

    name: str
    """Its name, e.g. ``softmax``."""
    module: str
    """The exercise file it lives in, without ``.py``."""
    summary: str
    """The first line of its docstring."""
    is_class: bool = False
    """A class students write (the torch track's module), graded through ``module_harness``."""


@dataclass(frozen=True)
class Course:
    """A course on disk, with the order in which its files may import each other."""

    root: Path
    name: str
    modules: tuple[str, ...]
    """Exercise files in import order: a file may import the ones before it."""
    functions: tuple[ContractFunction, ...]
    """Every function (and class) students write, in file order then source order."""
    needs: dict[str, tuple[str, ...]] = None
    """Heavy libraries a file's workers import (``{"torch_attention": ("torch",)}``): the fork
    server imports them once, and only when such a file is graded."""
    depends: dict[str, tuple[str, ...]] = None
    """Same-file functions a function may lean on (``[course.depends]``), a graph without cycles:
    only these, of its own file, are answered by the reference while it is graded."""
    packages: tuple[str, ...] = ()
    """Libraries student code may import besides Python's standard library, numpy and the
    ``needs`` of a track (``[course] packages``): import names, checked by ``check_package_names``."""
    warmups: dict[str, Path] = None
    """Per library of ``needs`` or ``packages``, a course file the fork server runs once after importing it
    (``[course.warmup]``), so every worker inherits what the library's first use loads."""

    @property
    def exercises_dir(self) -> Path:
        return self.root / "exercises"

    @property
    def solutions_dir(self) -> Path:
        return self.root / "solutions"

    @property
    def hidden_tests_dir(self) -> Path:
        return self.solutions_dir / "hidden_tests"

    @property
    def public_tests_dir(self) -> Path:
        return self.exercises_dir / "tests"

    def function(self, name: str) -> ContractFunction:
        return self._by_name[name]

    @functools.cached_property
    def _by_name(self) -> dict[str, ContractFunction]:
        return {function.name: function for function in self.functions}

    def functions_in(self, module: str) -> list[str]:
        return [f.name for f in self.functions if f.module == module]

    def modules_before(self, module: str) -> tuple[str, ...]:
        return self.modules[: self.modules.index(module)]

    def depends_on(self, function: str) -> tuple[str, ...]:
        """The same-file functions ``function`` may call and have answered by the reference."""
        return (self.depends or {}).get(function, ())

    def served_with(self, function: str) -> tuple[str, ...]:
        """The functions of ``function``'s file with the same declared dependencies (``function``
        among them): one worker may serve them all, since each may use every stand-in it has."""
        module, depends = self.function(function).module, tuple(self.depends_on(function))
        return tuple(f for f in self.functions_in(module) if tuple(self.depends_on(f)) == depends)

    def standins_for(self, function: str) -> dict[str, list[str]]:
        """What the reference answers while ``function`` is graded, by file: every function of the
        files before its own (the import order), and its declared same-file dependencies."""
        module = self.function(function).module
        standins = {m: self.functions_in(m) for m in self.modules_before(module)}
        standins[module] = list(self.depends_on(function))
        return standins

    def needs_of(self, module: str) -> tuple[str, ...]:
        return (self.needs or {}).get(module, ())

    @property
    def libraries(self) -> tuple[str, ...]:
        """Every library some student file may import besides the standard library: numpy, what any
        track needs, and the course's ``packages`` (what the sandbox shows; which file may import
        which is ``libraries_of``)."""
        needed = (name for module in self.modules for name in self.needs_of(module))
        return tuple(dict.fromkeys(("numpy", *needed, *self.packages)))

    def libraries_of(self, module: str) -> tuple[str, ...]:
        """The libraries the file ``module`` may import besides the standard library and the
        course's files: numpy, the course's ``packages`` and what its own track needs (torch for
        the PyTorch track's file, not for a numpy file). ``attnlab check`` and every sandbox mode
        apply this one rule (``sandbox.inside.import_rule``)."""
        return tuple(dict.fromkeys(("numpy", *self.needs_of(module), *self.packages)))

    @property
    def tracks(self) -> dict[str, list[str]]:
        """Exercise files by track: ``numpy`` for files that need nothing heavy, else the library
        a file needs (``torch``), in course order."""
        tracks: dict[str, list[str]] = {}
        for module in self.modules:
            tracks.setdefault((self.needs_of(module) or ("numpy",))[0], []).append(module)
        return tracks

    def select(
        self, only: list[str] | tuple[str, ...] = (), tracks: list[str] | tuple[str, ...] = ()
    ) -> list[str] | None:
        """The exercise files named by ``only`` and by ``tracks`` (None: all), checked to exist."""
        unknown = sorted(set(only) - set(self.modules))
        if unknown:
            raise CourseError(f"no exercise file named {', '.join(unknown)} (the course has {', '.join(self.modules)})")
        unknown_tracks = sorted(set(tracks) - set(self.tracks))
        if unknown_tracks:
            raise CourseError(f"no track named {', '.join(unknown_tracks)} (the course has {', '.join(self.tracks)})")
        chosen = set(only) | {m for t in tracks for m in self.tracks[t]}
        return [m for m in self.modules if m in chosen] or None

    @classmethod
    def load(cls, root: Path) -> "Course":
        manifest_path = root / MANIFEST
        manifest = read_toml(manifest_path, missing=f"{root} is not an attnlab course: {MANIFEST} is missing")
        section = manifest.get("course", {})
        modules = section.get("modules")
        if not isinstance(modules, list) or not all(isinstance(m, str) and m.isidentifier() for m in modules):
            raise CourseError(f"{manifest_path}: [course] modules must be a list of module names")
        # The reference defines the contract; a student's copy has only the stubs, which share it.
        from_stubs = not (root / "solutions").is_dir()
        source_dir = root / "exercises" if from_stubs else root / "solutions"
        functions = tuple(
            f for module in modules for f in _functions_in_file(source_dir / f"{module}.py", module, from_stubs)
        )
        needs = section.get("needs", {})
        if not isinstance(needs, dict) or not all(
            m in modules and isinstance(v, list) and all(isinstance(n, str) and n.isidentifier() for n in v)
            for m, v in needs.items()
        ):
            raise CourseError(f"{manifest_path}: [course.needs] must map listed modules to lists of library names")
        needs = {m: check_package_names(v, modules, f"{manifest_path}: [course.needs] {m}") for m, v in needs.items()}
        depends = _read_depends(section.get("depends", {}), functions, manifest_path)
        packages = check_package_names(section.get("packages", []), modules, f"{manifest_path}: [course] packages")
        warmups = _read_warmups(
            section.get("warmup", {}),
            root,
            {*(n for names in needs.values() for n in names), *packages},
            manifest_path,
            from_stubs,
        )
        return cls(
            root=root.resolve(),
            name=section.get("name", root.name),
            modules=tuple(modules),
            functions=functions,
            needs=needs,
            depends=depends,
            packages=packages,
            warmups=warmups,
        )


# Names a course may not offer its students as packages: the engine, the folders that hold what
# students must never reach, and what every course has anyway.
_RESERVED_PACKAGES = {
    "attnlab": "it is the grader itself",
    "solutions": "it is where the reference solutions live",
    "hidden_tests": "it is where the hidden tests live",
    "exercises": "it is the course's own folder",
    "numpy": "numpy is always available",
}
_PACKAGE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def check_package_names(names: object, modules: list[str] | tuple[str, ...], where: str) -> tuple[str, ...]:
    """``names`` checked as packages a course lets its students import: top-level import names
    (``einops``, not ``scikit-learn`` nor a path), none of the grader's own, of the course's
    exercise files or of the standard library. A ``CourseError`` names the first bad one."""
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise CourseError(f"{where} must be a list of import names, e.g. [\"einops\"]")
    for name in names:
        if not _PACKAGE_NAME.fullmatch(name):
            hint = (
                f" (its import name, e.g. {name.replace('-', '_').split('.')[0]!r})"
                if re.fullmatch(r"[\w.-]+", name)
                else ""
            )
            raise CourseError(
                f"{where}: {name!r} is not an import name{hint}: list top-level packages students import, never a path"
            )
        if name.lower() in _RESERVED_PACKAGES:
            raise CourseError(f"{where}: {name!r} cannot be offered to students: {_RESERVED_PACKAGES[name.lower()]}")
        if name in modules:
            raise CourseError(f"{where}: {name!r} is an exercise file of the course, not a package")
        if name in sys.stdlib_module_names:
            raise CourseError(
                f"{where}: {name!r} is part of Python's standard library, which students may always import"
            )
    if len(set(names)) != len(names):
        raise CourseError(f"{where} lists a package twice")
    return tuple(names)


# A warm-up travels to the fork server on its command line: a few lines, not a program.
WARMUP_MAX_BYTES = 16 << 10


def _read_warmups(
    section: object, root: Path, libraries: set[str], manifest_path: Path, student_copy: bool
) -> dict[str, Path]:
    """``[course.warmup]`` checked: each key a library of ``[course.needs]`` or ``packages``, each
    value a small .py file inside the course. A student's copy has no warm-up files, and needs none."""
    where = f"{manifest_path}: [course.warmup]"
    if not isinstance(section, dict) or not all(isinstance(v, str) for v in section.values()):
        raise CourseError(f"{where} must map library names to .py files of the course")
    warmups = {}
    for library, relative in section.items():
        if library not in libraries:
            raise CourseError(
                f"{where}: {library!r} is neither a library of [course.needs] nor one of the course's packages"
            )
        path = (root / relative).resolve()
        if Path(relative).is_absolute() or not path.is_relative_to(root.resolve()) or path.suffix != ".py":
            raise CourseError(f"{where}: {relative!r} must be a .py file inside the course folder")
        if student_copy:
            continue
        if not path.is_file():
            raise CourseError(f"{where}: {relative} does not exist")
        if path.stat().st_size > WARMUP_MAX_BYTES:
            raise CourseError(
                f"{where}: {relative} is larger than {WARMUP_MAX_BYTES >> 10} KiB; a warm-up is a few lines"
            )
        warmups[library] = path
    return warmups


def _read_depends(
    section: object, functions: tuple[ContractFunction, ...], manifest_path: Path
) -> dict[str, tuple[str, ...]]:
    """``[course.depends]`` checked: each key and dependency a function of the same file, and no cycle."""
    where = f"{manifest_path}: [course.depends]"
    if not isinstance(section, dict) or not all(
        isinstance(v, list) and all(isinstance(n, str) for n in v) for v in section.values()
    ):
        raise CourseError(f"{where} must map function names to lists of function names")
    module_of = {f.name: f.module for f in functions}
    for name, dependencies in section.items():
        if name not in module_of:
            raise CourseError(f"{where}: no function named {name!r} in the course")
        for dependency in dependencies:
            if module_of.get(dependency) != module_of[name] or dependency == name:
                raise CourseError(
                    f"{where}: {name} may depend only on other functions of {module_of[name]}.py, not {dependency!r} (earlier files are always available)"
                )
    depends = {name: tuple(dependencies) for name, dependencies in section.items()}
    visiting: list[str] = []
    done: set[str] = set()

    def visit(name: str) -> None:
        if name in done:
            return
        if name in visiting:
            cycle = " -> ".join([*visiting[visiting.index(name) :], name])
            raise CourseError(f"{where}: a cycle ({cycle}); a function cannot lean on one that leans back on it")
        visiting.append(name)
        for dependency in depends.get(name, ()):
            visit(dependency)
        visiting.pop()
        done.add(name)

    for name in depends:
        visit(name)
    return depends


def read_toml(path: Path, *, missing: str) -> dict:
    """Parse a TOML file; a missing or malformed one is a ``CourseError`` with a one-line message."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CourseError(missing) from None
    except tomllib.TOMLDecodeError as error:
        raise CourseError(f"{path}: {error}") from None


def _functions_in_file(path: Path, module: str, student_file: bool = False) -> list[ContractFunction]:
    """The contract names ``path`` defines at its top level. A student's file that Python cannot
    read is read line by line instead, so ``attnlab check`` can still say where it breaks."""
    try:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, filename=str(path))
    except FileNotFoundError:
        raise CourseError(f"the course lists {module!r} but {path} does not exist") from None
    except SyntaxError as error:
        if student_file:
            return _definitions_by_line(source, module)
        raise CourseError(f"{path}:{error.lineno}: {error.msg}") from None
    return [
        ContractFunction(node.name, module, _first_line(ast.get_docstring(node)), isinstance(node, ast.ClassDef))
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_")
    ]


_DEFINITION = re.compile(r"^(?:async\s+def|def|class)\s+([A-Za-z]\w*)", re.M)


def _definitions_by_line(source: str, module: str) -> list[ContractFunction]:
    """The top-level ``def`` and ``class`` lines of a file that does not parse."""
    return [
        ContractFunction(match.group(1), module, "", match.group(0).startswith("class"))
        for match in _DEFINITION.finditer(source)
    ]


def _first_line(docstring: str | None) -> str:
    return docstring.strip().splitlines()[0] if docstring and docstring.strip() else ""


def find_course(explicit: Path | None = None) -> Course:
    """The course named by ``explicit``, ``$ATTNLAB_COURSE``, the folders above the working one, or this checkout."""
    if explicit is not None:
        return Course.load(Path(explicit))
    if os.environ.get("ATTNLAB_COURSE"):
        return Course.load(Path(os.environ["ATTNLAB_COURSE"]))
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / MANIFEST).is_file():
            return Course.load(folder)
    checkout = Path(__file__).resolve().parents[2]  # grader/attnlab/course.py -> the repository
    if (checkout / MANIFEST).is_file():
        return Course.load(checkout)
    raise CourseError("no attnlab course found here or above (looked for exercises/course.toml); pass --course DIR")
