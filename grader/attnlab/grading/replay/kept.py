"""The reference's recorded run, kept per exercise file for the next grading.

Recording (``recording``) runs the hidden suite against the reference: seconds per file, paid by
every grading that finds no recording of the files it grades, a one-student regrade included. A
file's recording depends only on the course (its hidden tests and reference solutions), the
engine and the libraries that computed it, so it is kept under that key: a class beside its
results (``CLASS.results/.recordings/``), a submission graded alone in ``ATTNLAB_RECORDINGS``
(Gradescope's autograder records its own when its image is built) or else the user's cache
(``$XDG_CACHE_HOME/attnlab/recordings/``, else ``~/.cache/...``). Every way of grading reads the
same recordings the same way.

The files are pickles, written by the grader into folders only its own user may open, which no
student code can reach (the sandbox sees only its submission). A file's key is checked before
anything is unpickled; a file that does not load is recorded again.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import os
import pickle
import sys
from pathlib import Path
from typing import Callable

import attnlab
from attnlab.atomic import write_bytes_atomically
from attnlab.course import Course
from attnlab.grading.replay.recording import record_files
from attnlab.grading.replay.script import Script
from attnlab.reference import Reference

RESULTS_SUBFOLDER = ".recordings"
"""Where a class keeps its recordings, inside its results folder."""
KEPT_IN_CACHE = 64
"""Recordings the user's cache keeps (the newest): other courses and engines leave theirs there."""
# The libraries whose numbers are in the recording.
_LIBRARIES = ("numpy", "torch", "hypothesis", "pytest")
_LOADED: dict[tuple[str, bytes], Script] = {}
"""Recordings this process already read, by (file, key): a process grades many submissions."""


RECORDINGS_VARIABLE = "ATTNLAB_RECORDINGS"


def cache_folder() -> Path:
    """Where a submission graded alone keeps the recordings: ``ATTNLAB_RECORDINGS``, else the user's cache."""
    if os.environ.get(RECORDINGS_VARIABLE):
        return Path(os.environ[RECORDINGS_VARIABLE])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "attnlab" / "recordings"


def _course_digest(course: Course) -> str:
    """The hidden tests and the reference solutions, as they are on disk."""
    paths = sorted(
        p
        for folder in (course.hidden_tests_dir, course.solutions_dir)
        for p in folder.rglob("*")
        if p.is_file() and p.suffix in (".py", ".toml", ".ini")
    )
    return _digest_of_files(course.root, tuple((p, p.stat().st_mtime_ns, p.stat().st_size) for p in paths))


@functools.lru_cache(maxsize=8)
def _digest_of_files(root: Path, files: tuple) -> str:
    """The files' names and contents (read once per process while their times and sizes stay)."""
    digest = hashlib.sha256()
    for path, _, _ in files:
        name, data = str(path.relative_to(root)).encode(), path.read_bytes()
        digest.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


@functools.cache
def _engine_digest() -> str:
    digest = hashlib.sha256(f"{sys.version}\n".encode())
    for name in _LIBRARIES:
        try:
            digest.update(f"{name}=={importlib.metadata.version(name)}\n".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"{name} absent\n".encode())
    engine = Path(attnlab.__file__).parent
    for path in sorted(engine.rglob("*.py")):
        name, data = str(path.relative_to(engine)).encode(), path.read_bytes()
        digest.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def recording_keys(course: Course, modules: list[str]) -> dict[str, bytes]:
    """Each file's key: what its recording depends on (the course, the engine, the libraries,
    Python, and the file)."""
    common = f"{_course_digest(course)}\n{_engine_digest()}\n"
    return {m: hashlib.sha256(f"{common}{m}\n".encode()).hexdigest().encode() for m in modules}


def _path(folder: Path, module: str, key: bytes) -> Path:
    return folder / f"{module}-{key[:24].decode()}.pickle"


def _load(folder: Path, module: str, key: bytes) -> Script | None:
    """The recording of ``module`` kept in ``folder`` under ``key``, or None (absent, another key, unreadable)."""
    memo = _LOADED.get((module, key))
    if memo is not None:
        return memo
    try:
        with open(_path(folder, module, key), "rb") as stream:
            if stream.readline().rstrip(b"\n") != key:
                return None
            script = pickle.load(stream)
    except Exception:  # noqa: BLE001 - a cache: whatever is wrong with it, record again
        return None
    if not isinstance(script, Script):
        return None
    _LOADED[(module, key)] = script
    return script


def _save(folder: Path, module: str, key: bytes, script: Script) -> None:
    """Keep ``script`` in ``folder`` for the next grading (silently not, when it cannot be written)."""
    _LOADED[(module, key)] = script
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.chmod(0o700)  # the reference's answers: the grader's user's alone
        write_bytes_atomically(
            _path(folder, module, key), key + b"\n" + pickle.dumps(script, protocol=pickle.HIGHEST_PROTOCOL)
        )
    except (OSError, pickle.PicklingError):
        pass


def _prune(folder: Path, keep: int) -> None:
    """Leave the ``keep`` newest recordings in ``folder``."""
    try:
        kept = sorted(folder.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in kept[keep:]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass


def recorded_run(
    course: Course,
    reference: Reference,
    modules: list[str],
    folder: Path | None = None,
    *,
    jobs: int = 1,
    on_recording: Callable[[list[str]], None] = lambda missing: None,
    also: Path | None = None,
) -> Script:
    """The reference's recorded run of ``modules`` (in course order): each file's recording kept
    in ``folder`` (default: the user's cache) under its key, else recorded now (``jobs``
    processes sharing the files; ``on_recording`` is told which first) and kept.

    ``also``: a second place that may hold them under the same keys (a class's results folder
    asks the user's cache): what is found there is kept in ``folder`` too, and what is recorded
    is kept in both, so that a new results folder, a regrade and a student graded alone after
    the class do not record the same run again."""
    modules = [m for m in course.modules if m in modules]
    keys = recording_keys(course, modules)
    place = folder if folder is not None else cache_folder()
    places = [place, *([also] if also is not None and also != place else [])]
    scripts = {m: _load(place, m, keys[m]) for m in modules}
    for module in [m for m in modules if scripts[m] is None and len(places) > 1]:
        scripts[module] = _load(places[1], module, keys[module])
        if scripts[module] is not None:
            _save(place, module, keys[module], scripts[module])
    missing = [m for m in modules if scripts[m] is None]
    if missing:
        on_recording(missing)
        for module, script in record_files(course, reference, missing, jobs).items():
            for each in places:
                _save(each, module, keys[module], script)
            scripts[module] = script
        for each in places:
            if each == cache_folder() and not os.environ.get(RECORDINGS_VARIABLE):
                _prune(each, KEPT_IN_CACHE)
    return Script([test for m in modules for test in scripts[m].tests])
