"""What a student meant a name to be: the names tools and people give a file or a folder by mistake.

A browser saves a second download as ``attention (1).py``, a file manager a copy as
``attention copy.py`` or ``attention - Copy.py``, an editor on Windows ``attention.py.txt``, and a
student types ``Attention.py``. Each is still ``attention.py``: ``meant_name`` says so, and
``without_copy_suffix`` gives a folder's name without the copy suffix (``s2311 (1)`` is a second
upload of student ``s2311``). Nothing else is guessed: a name is matched only up to case, one
copy suffix and a trailing ``.txt``.

``choose`` then says which of the files found is graded as each exercise file, and names the rest:
a misnamed file is graded and said to be, two that could each be the file are named and neither
graded, and folders of drafts (``v1/``, ``v2/``) are refused, never chosen silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations
from typing import Callable

# " (1)", "(2)", " copy", " copy 2", " - Copy", " - Copy (3)", "_copy", "-copy2": what a second copy gets.
_COPY_SUFFIX = re.compile(r"(?:\s*\(\d{1,3}\)|\s*[-_ ]\s*copy(?:\s*\(?\d{1,3}\)?)?)$", re.IGNORECASE)


def without_copy_suffix(name: str) -> tuple[str, int]:
    """``name`` without a copy suffix, and which copy it says it is: ``("s2311", 0)`` for
    ``s2311``, ``("s2311", 1)`` for ``s2311 (1)``, ``("s2311", 1)`` for ``s2311 copy``."""
    match = _COPY_SUFFIX.search(name)
    if not match or match.start() == 0:
        return name, 0
    digits = re.search(r"\d+", match.group())
    return name[: match.start()].rstrip(), int(digits.group()) if digits else 1


def meant_name(name: str, names: set[str] | frozenset[str]) -> str | None:
    """The name of ``names`` that ``name`` is, as handed in: itself, else up to its case, a copy
    suffix before the extension and a trailing ``.txt``; None when it is none of them."""
    if name in names:
        return name
    lowered = {n.lower(): n for n in names}
    text = name.lower()
    if text.endswith(".txt") and text[:-4] in lowered:
        return lowered[text[:-4]]
    if text.endswith(".txt"):
        text = text[:-4]
    stem, dot, extension = text.rpartition(".")
    if not dot or not stem:
        return None
    stem, _ = without_copy_suffix(stem)
    return lowered.get(f"{stem}.{extension}")


@dataclass(frozen=True)
class Candidate:
    """A folder of an upload that holds exercise files (``where``: "" at the top, else ``v2`` or
    ``work/v2``), and what it holds."""

    where: str
    found: dict[str, list[str]]
    """Each exercise file's name -> the names handed in that are it (``meant_name``)."""
    newest: float
    """When the newest of those files was saved (a number that orders times)."""


@dataclass(frozen=True)
class Choice:
    """Which file handed in is graded as each exercise file, and what was said about the rest."""

    chosen: dict[str, tuple[str, str]]
    """Exercise file -> (its folder's ``where``, the name handed in)."""
    notes: tuple[str, ...]
    """How the files graded were found (a misnamed file, the newest draft), one line each."""
    not_graded: tuple[str, ...]
    """What was found and not graded, and why, one line each."""


class AmbiguousUpload(ValueError):
    """Folders of an upload each hold exercise files (drafts?), and none may be chosen silently."""


DRAFTS = "each hold exercise files (drafts?): hand in one of them"
"""The refusal a student reads (their feedback, Gradescope's page); ``for_instructor`` adds the option they have."""


def for_instructor(refusal: str) -> str:
    """A submission's refusal as its instructor reads it: for drafts, with the option to grade the newest."""
    if DRAFTS not in refusal:
        return refusal
    return refusal.replace(
        DRAFTS,
        "each hold exercise files (drafts?): grade the newest of them with --pick newest, or ask the student to hand in one",
    )


def choose(candidates: list[Candidate], pick: str | None = None, show: Callable[[str], str] = str) -> Choice:
    """What is graded of ``candidates``, the folders at the shallowest depth holding exercise files.

    Folders holding different files (``part1/``: softmax.py, ``part2/``: masks.py) are one upload.
    Folders holding the same file are drafts: refused (``AmbiguousUpload``), unless ``pick`` is
    ``"newest"``, which grades the folder saved last. In a folder, the exact name wins over a
    misnamed copy; a misnamed file alone is graded, and said to be; two misnamed files that are the
    same exercise file are both left out, and named. ``show`` makes a handed-in name printable."""

    def folder(candidate: Candidate) -> str:
        return f"{show(candidate.where)}/" if candidate.where else "the top folder"

    notes, not_graded = [], []
    if len(candidates) > 1 and any(set(a.found) & set(b.found) for a, b in combinations(candidates, 2)):
        drafts = " and ".join(folder(c) for c in candidates)
        if pick != "newest":
            raise AmbiguousUpload(f"{drafts} {DRAFTS}")
        ordered = sorted(candidates, key=lambda c: c.newest, reverse=True)
        if ordered[0].newest == ordered[1].newest:
            raise AmbiguousUpload(
                f"{drafts} each hold exercise files, saved at the same time, so none is the newest: hand in one of them"
            )
        # The student reads this note: the words of what was done, not the instructor's option.
        notes.append(f"graded {folder(ordered[0])}, the newest of the drafts {drafts} (the one saved last)")
        not_graded += [f"{folder(c)}: not graded, an older draft than {folder(ordered[0])}" for c in ordered[1:]]
        candidates = ordered[:1]
    chosen: dict[str, tuple[str, str]] = {}
    for candidate in candidates:
        prefix = f"{show(candidate.where)}/" if candidate.where else ""
        for expected, handed_in in sorted(candidate.found.items()):
            misnamed = [name for name in handed_in if name != expected]
            if expected in handed_in:
                chosen[expected] = (candidate.where, expected)
                not_graded += [f"{prefix}{show(name)}: not graded, as {prefix}{expected} was" for name in misnamed]
            elif len(misnamed) == 1:
                chosen[expected] = (candidate.where, misnamed[0])
                notes.append(f"{prefix}{show(misnamed[0])} was graded as {expected}")
            else:
                both = " and ".join(prefix + show(name) for name in misnamed)
                not_graded.append(f"{both}: not graded, as either may be {expected}: name the one to grade {expected}")
    if len(candidates) > 1:
        notes.append("graded together: " + "; ".join(f"{folder(c)} ({', '.join(sorted(c.found))})" for c in candidates))
    return Choice(chosen, tuple(notes), tuple(not_graded))
