"""Practice copies kept between releases: a quiz's copy is hashed again only when what it is made from changed.

A practice copy costs one memory-hard scrypt per accepted answer (about 3,000 over the bundled
quizzes, some 150 CPU-seconds), and it does not depend on the roster: a release with ``--roster``
after one without, or a second release after a README fix, would hash the same answers again.
So each copy is kept, under a fingerprint of everything it is made from (the quiz's YAML, the
course's manifest and reference solutions, the engine's quiz code, the copy's format and scrypt
cost), in ``ATTNLAB_PRACTICE_COPIES``, else the user's cache. A kept copy is one a release already
handed to students: it holds no more than they had, and a guess against it costs what it did.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import attnlab
from attnlab.atomic import write_text_atomically
from attnlab.course import MANIFEST, Course

FOLDER_VARIABLE = "ATTNLAB_PRACTICE_COPIES"
_QUIZ_ENGINE = Path(attnlab.__file__).resolve().parent / "quiz"


def folder() -> Path:
    """Where practice copies are kept: ``ATTNLAB_PRACTICE_COPIES``, else the user's cache."""
    if os.environ.get(FOLDER_VARIABLE):
        return Path(os.environ[FOLDER_VARIABLE])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "attnlab" / "practice-copies"


def fingerprint(course: Course, quiz_path: Path, cost: dict) -> str:
    """The digest of everything the practice copy of ``quiz_path`` is made from."""
    from attnlab.quiz.student_copy import FORMAT

    digest = hashlib.sha256(f"{FORMAT}\0{json.dumps(cost, sort_keys=True)}\0".encode())
    sources = [quiz_path, course.root / MANIFEST]
    sources += sorted(p for p in course.solutions_dir.rglob("*.py") if "hidden_tests" not in p.parts)
    sources += sorted(_QUIZ_ENGINE.rglob("*.py"))
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def kept(key: str, cost: dict) -> dict | None:
    """The copy kept under ``key``, if there is a whole one made at ``cost``; else None."""
    try:
        copy = json.loads((folder() / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # none kept, or a damaged one: it is made again
    if not isinstance(copy, dict) or copy.get("sitting") != "practice" or copy.get("scrypt") != cost:
        return None
    return copy


def keep(key: str, copy: dict, cost: dict) -> None:
    """Keep ``copy`` under ``key`` when it was made at ``cost`` (a cheaper one, a test's, is not kept)."""
    if copy.get("scrypt") != cost:
        return
    try:
        write_text_atomically(folder() / f"{key}.json", json.dumps(copy, indent=1))
    except OSError:
        pass  # a cache that cannot be written costs the next release time, not this one its bundle
