"""A quiz ready to take: each question with a way to check an answer, from either source.

The instructor's YAML gives keyed items for either sitting (exact checks,
explanations always available); a practice copy gives hashed items (checks
without the answer, explanations unlocked by a right answer); an exam copy
gives items that check nothing (answers are recorded for the instructor). A
question practice does not check (one without parameters is the exam's own
question) checks nothing in practice from either source. The runner and the
marking see only ``Item``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from attnlab.quiz.asked import AskedQuestion
from attnlab.quiz.errors import QuizError
from attnlab.quiz.verdict import NOT_CHECKED_IN_PRACTICE, Verdict


@dataclass(frozen=True)
class Item:
    asked: AskedQuestion
    check: Callable[[object], Verdict]
    explanation: object | None
    """The instructor's quiz only: ``explanation.get().explanation`` may be shown without a right answer."""
    checked: bool = True
    """False when this source checks nothing of the question (an exam copy; practice of the exam's own question)."""
    refuse: Callable[[object], str | None] = lambda value: None
    """Why an answer of the wrong size cannot be taken ("3 numbers are expected, not 2"), where this
    source knows the size (not an exam copy); None to take it."""


@dataclass(frozen=True)
class OpenedQuiz:
    id: str
    title: str
    items_for: Callable[[str, str], list[Item]]
    """The items of one student's variant in a sitting: ``items_for(student, "exam" | "practice")``."""
    sitting: str | None = None
    """The one sitting a student copy is for (``exam`` or ``practice``); None for the instructor's quiz."""
    copy: dict | None = None
    """A student copy's data (None for the instructor's quiz)."""


class _LazyKey:
    """The key of one question, computed on first use: numpy and the reference load only then."""

    def __init__(self, compute: Callable):
        self._compute, self._keyed = compute, None

    def get(self):
        if self._keyed is None:
            self._keyed = self._compute()
        return self._keyed


def _not_checked(value) -> Verdict:
    return Verdict(None, NOT_CHECKED_IN_PRACTICE)


def _keyed_item(asked: AskedQuestion, lazy: _LazyKey) -> Item:
    def check(value):
        return lazy.get().verdict(value)

    def refuse(value):
        key = lazy.get().key
        return asked.kind.size_refusal(value, asked.kind.shape(key))

    return Item(asked, check, lazy, refuse=refuse)


def open_quiz(path: Path, reference_factory: Callable) -> OpenedQuiz:
    """Open a quiz from the instructor's YAML or from a student copy (``.json``)."""
    if Path(path).suffix == ".json":
        from attnlab.quiz import student_copy

        copy = student_copy.load(path)

        def copy_items(student: str, sitting: str) -> list[Item]:
            if sitting != copy["sitting"]:
                raise QuizError(
                    f"{path} is the {copy['sitting']} copy of {copy['id']!r}: it cannot be taken in {sitting} mode"
                )
            try:
                pairs = student_copy.questions_for(copy, student)
            except (KeyError, TypeError, IndexError, ValueError, AttributeError):
                raise QuizError(f"{path}: this quiz copy is damaged; ask your instructor for a new copy") from None
            return [Item(asked, h.check, None, checked=h.variant is not None, refuse=h.refuse) for asked, h in pairs]

        return OpenedQuiz(copy["id"], copy["title"], copy_items, copy["sitting"], copy)
    from attnlab.quiz.schema import load_quiz
    from attnlab.quiz.variant import asked_question, keyed_question

    quiz = load_quiz(path)

    def items_for(student: str, sitting: str) -> list[Item]:
        return [
            _keyed_item(
                asked_question(quiz, q, student, sitting),
                _LazyKey(lambda q=q: keyed_question(quiz, q, student, reference_factory, sitting)),
            )
            if sitting == "exam" or q.checked_in_practice
            else Item(asked_question(quiz, q, student, sitting), _not_checked, None, checked=False)
            for q in quiz.questions
        ]

    return OpenedQuiz(quiz.id, quiz.title, items_for)


def find_quiz(name: str, quizzes_dir: Path, sitting: str = "practice") -> Path:
    """A quiz named by path, or by id in the course's quizzes folder: the instructor's YAML, else the
    student copy for ``sitting`` (``ID.exam.json`` for an exam, ``ID.json`` for practice)."""
    candidate = Path(name)
    if candidate.suffix in (".yaml", ".yml", ".json") or candidate.exists():
        return candidate
    copy = f".{sitting}.json" if sitting == "exam" else ".json"
    for suffix in (".yaml", ".yml", copy):
        if (quizzes_dir / f"{name}{suffix}").is_file():
            return quizzes_dir / f"{name}{suffix}"
    stems = {p.stem for p in quizzes_dir.glob("*.y*ml")} | {p.name.split(".")[0] for p in quizzes_dir.glob("*.json")}
    available = ", ".join(sorted(stems)) or "none"
    raise QuizError(f"no quiz named {name!r} (available: {available})")


def reference_factory_for(course_loader: Callable) -> Callable:
    """A lazy, cached loader of the reference solutions: only questions that call one pay for it."""
    cache = {}

    def load():
        if "reference" not in cache:
            from attnlab.reference import Reference

            cache["reference"] = Reference(course_loader())
        return cache["reference"]

    return load
