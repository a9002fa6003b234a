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
    """Why an answer of the wrong size cannot be taken ("3 numbers are expected, not 2"); None to take it."""
    layout: Callable[[], list[int] | None] = lambda: None
    """The size of a right answer where the kind has one the question states (a vector's length, a
    matrix's rows and columns), else None: the runner asks a matrix's rows one by one with it."""


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

    def layout():
        return asked.kind.shape(lazy.get().key) if asked.kind.sized else None

    def refuse(value):
        return asked.kind.size_refusal(value, layout()) if asked.kind.sized else None

    return Item(asked, check, lazy, refuse=refuse, layout=layout)


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
            return [
                Item(asked, h.check, None, checked=h.variant is not None, refuse=h.refuse, layout=h.layout)
                for asked, h in pairs
            ]

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
    listed = quiz_files(quizzes_dir)
    if sitting == "exam" and name in listed:
        raise QuizError(
            f"there is no exam copy of {name!r} here ({quizzes_dir / (name + EXAM_COPY)} is missing): your"
            " instructor makes the exam copies for the class's roster (attnlab release --roster, or"
            f" attnlab quiz student-copy {name} --mode exam --roster) and gives them out for the exam;"
            " without --mode exam you practise it"
        )
    if sitting == "practice" and name in listed:
        raise QuizError(
            f"there is no practice copy of {name!r} here ({quizzes_dir / (name + '.json')} is missing), only"
            " its exam copy: take the exam with --mode exam, or ask your instructor for the practice copy"
            " (attnlab release writes one of every quiz)"
        )
    available = ", ".join(listed) or "none"
    exams = [quiz for quiz, files in listed.items() if files["exam"]]
    with_exam = f"; with an exam copy: {', '.join(exams) or 'none'}" if sitting == "exam" else ""
    raise QuizError(f"no quiz named {name!r} in {quizzes_dir} (quizzes there: {available}{with_exam})")


EXAM_COPY = ".exam.json"
"""The suffix of an exam copy (``masks.exam.json``); a practice copy is ``masks.json``."""


def quiz_files(quizzes_dir: Path) -> dict[str, dict[str, Path | None]]:
    """Each quiz in ``quizzes_dir`` by id (sorted): its instructor's YAML, practice copy and exam copy
    (``yaml``, ``practice``, ``exam``), None where it has not got one."""
    found: dict[str, dict[str, Path | None]] = {}

    def entry(quiz_id: str) -> dict:
        return found.setdefault(quiz_id, {"yaml": None, "practice": None, "exam": None})

    if not quizzes_dir.is_dir():
        return found
    for path in sorted(quizzes_dir.iterdir()):
        if not path.is_file():
            continue
        if path.name.endswith(EXAM_COPY):
            entry(path.name[: -len(EXAM_COPY)])["exam"] = path
        elif path.suffix == ".json":
            entry(path.stem)["practice"] = path
        elif path.suffix in (".yaml", ".yml"):
            entry(path.stem)["yaml"] = path
    return dict(sorted(found.items()))


def reference_factory_for(course_loader: Callable) -> Callable:
    """A lazy, cached loader of the reference solutions: only questions that call one pay for it."""
    cache = {}

    def load():
        if "reference" not in cache:
            from attnlab.reference import Reference

            cache["reference"] = Reference(course_loader())
        return cache["reference"]

    return load
