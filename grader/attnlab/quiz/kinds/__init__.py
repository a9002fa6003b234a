"""Answer kinds: how a typed answer is parsed (``reading``), and the one rule that says whether it is right.

Each kind is one object (``base.Kind``), in a file of its own: it parses the student's text into
a value (or says why it cannot), normalises a key to that form, gives the answer's *canonical
form* (one string; an answer is right exactly when its form is one of the key's *accepted
forms*), shows values to people, says what is wrong with an author's options or key, and what
its questions are in an LMS (``lms_forms``, which ``export/quiz/`` writes). That is the only rule,
for the instructor's marking and for a practice copy (which holds hashes of the accepted forms,
never the key). Numbers are compared on a grid twice the question's tolerance wide (``grid``):
each element is rounded to the nearest grid point (in decimal, halves away from zero), so with
the default tolerance 0.005 an answer is right when it agrees with the key rounded to two
decimals. A question's ``slack`` widens that by the error that rounding intermediate results
adds: an element is right when its grid point is one that some value within its slack of the key
rounds to. The slack is per element (``variant`` gives none to an element that rounding along the
way leaves exact, such as a masked weight's 0); a single number stands for every element.

A new kind: its file (a ``Kind`` and its ``KIND``), and a line in ``KINDS`` below.
"""

from __future__ import annotations

from attnlab.quiz.errors import QuizError
from attnlab.quiz.kinds import integer, matrix, multiple, number, shape, single, truefalse, vector
from attnlab.quiz.kinds.base import LETTERS, MAX_ACCEPTED_FORMS, AnswerFormatError, Kind
from attnlab.quiz.kinds.grid import COARSER, cells, close_note, coarser, grid_point, per_element

__all__ = [
    "AnswerFormatError",
    "COARSER",
    "KINDS",
    "Kind",
    "LETTERS",
    "MAX_ACCEPTED_FORMS",
    "TELLS_CLOSE",
    "cells",
    "close_note",
    "coarser",
    "effective_tolerance",
    "grid_point",
    "kind_named",
    "per_element",
]

KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        integer.KIND,
        number.KIND,
        vector.KIND,
        matrix.KIND,
        shape.KIND,
        single.KIND,
        multiple.KIND,
        truefalse.KIND,
    )
}
"""Every answer kind, by the name a quiz's ``type:`` gives (in the order errors list them)."""

TELLS_CLOSE = {
    sitting: tuple(name for name, kind in KINDS.items() if kind.tells_close(sitting))
    for sitting in ("exam", "practice")
}
"""Which question types a sitting says "close" for: practice, a single number only (``student_copy``)."""


def kind_named(name: str) -> Kind:
    """The kind a question's ``type`` names; a ``QuizError`` that lists the kinds for any other."""
    try:
        return KINDS[name]
    except (KeyError, TypeError):
        raise QuizError(f"unknown question type {name!r} (the types are {', '.join(KINDS)})") from None


def effective_tolerance(kind_name: str, key, tolerance: float, relative: float | None) -> float:
    """The tolerance for this key: ``max(tolerance, relative * |key|)`` for numbers, rounded down
    to 1, 2 or 5 × 10^k (``NumberKind.effective_tolerance``)."""
    return kind_named(kind_name).effective_tolerance(key, tolerance, relative)
