"""The probe book's check, remembered: a release skips it while nothing it reads has changed.

Whether the probe book beside the public tests is current takes running every probe of the
catalogue with the reference and every entry (torch included): about 8 CPU-seconds, most of a
release whose practice copies are kept. The answer depends only on the course's solutions and
catalogue, the book, ``course.toml``, the engine code that runs the probes and the numerical
libraries' versions; a book found current is remembered under a digest of them (beside the kept
practice copies), and any change of one of them checks it again. A stale book is never
remembered: it is refused every time until ``attnlab stubs`` writes it.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from pathlib import Path

import attnlab
from attnlab.course import MANIFEST, Course
from attnlab.export import practice_copies

_ENGINE = Path(attnlab.__file__).resolve().parent
_ENGINE_FILES = ("misconceptions.py", "reference.py", "export/probe_book.py", "check/probe_book.py", "sandbox/inside")
_LIBRARIES = ("numpy", "torch")


def digest(course: Course, book: Path) -> str:
    """Everything the probe book's check reads, as one digest."""
    hashed = hashlib.sha256()
    for library in _LIBRARIES:
        try:
            hashed.update(f"{library} {importlib.metadata.version(library)}\0".encode())
        except importlib.metadata.PackageNotFoundError:
            hashed.update(f"{library} none\0".encode())
    files = [course.root / MANIFEST, book, *sorted(course.solutions_dir.rglob("*.py"))]
    for name in _ENGINE_FILES:
        path = _ENGINE / name
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    for path in files:
        data = path.read_bytes() if path.is_file() else b"(none)"
        hashed.update(str(path.name).encode() + b"\0" + data + b"\0")
    return hashed.hexdigest()


def _marker(key: str) -> Path:
    return practice_copies.folder() / "probe-book-checked" / key


def known_current(key: str) -> bool:
    """Whether a book with this digest was found current before."""
    return _marker(key).is_file()


def remember_current(key: str) -> None:
    """Remember that the book with this digest is current (a cache that cannot be written is skipped)."""
    try:
        _marker(key).parent.mkdir(parents=True, exist_ok=True)
        _marker(key).touch()
    except OSError:
        pass  # the next release checks it again
