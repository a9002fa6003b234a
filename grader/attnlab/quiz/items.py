"""A quiz ready to take: each question with a way to check an answer, from either source.

The instructor's YAML gives keyed items (exact checks, explanations always
available); a student copy gives hashed items (checks without the answer,
explanations unlocked by a right answer). The runner and the marking see only
``Item``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from attnlab.quiz.asked import AskedQuestion


@dataclass(frozen=True)
class Item:
    asked: AskedQuestion
    check: Callable[[object], tuple[bool | None, str | None]]
    """(right?, explanation shown when right); right is None when this source cannot check it."""
    explanation: str | None
    """The explanation, when the source may show it without a right answer (the instructor's quiz)."""


@dataclass(frozen=True)
class OpenedQuiz:
    id: str
    title: str
    items_for: Callable[[str], list[Item]]
    """The items of one student's variant."""


def _keyed(keyed) -> Item:
    asked, key = keyed.asked, keyed.key

    def check(value):
        right = asked.kind.matches(value, key, asked.tolerance)
        return right, keyed.explanation if right else None

    return Item(asked, check, keyed.explanation)


def open_quiz(path: Path, reference_factory: Callable) -> OpenedQuiz:
    """Open a quiz from the instructor's YAML or from a student copy (``.json``)."""
    if Path(path).suffix == ".json":
        from attnlab.quiz import student_copy

        copy = student_copy.load(path)
        return OpenedQuiz(copy["id"], copy["title"], lambda student: [Item(asked, hashed.check, None) for asked, hashed in student_copy.questions_for(copy, student)])
    from attnlab.quiz.schema import load_quiz
    from attnlab.quiz.variant import keyed_quiz

    quiz = load_quiz(path)
    return OpenedQuiz(quiz.id, quiz.title, lambda student: [_keyed(k) for k in keyed_quiz(quiz, student, reference_factory)])
