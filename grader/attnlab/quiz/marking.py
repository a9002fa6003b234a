"""Mark answers: per question right, wrong, unreadable, skipped or unchecked; totals and concepts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from attnlab import inert
from attnlab.quiz.items import Item
from attnlab.quiz.kinds import AnswerFormatError
from attnlab.quiz.errors import QuizError


@dataclass(frozen=True)
class QuestionMark:
    id: str
    status: str
    """``right``, ``wrong``, ``unreadable``, ``skipped`` or ``unchecked`` (a student copy without this variant)."""
    points: float
    max_points: float
    answer: str | None
    concepts: tuple[str, ...]


@dataclass(frozen=True)
class QuizMark:
    quiz: str
    student: str
    marks: tuple[QuestionMark, ...]

    @property
    def score(self) -> float:
        return sum(m.points for m in self.marks)

    @property
    def max_score(self) -> float:
        return sum(m.max_points for m in self.marks)

    def by_concept(self) -> dict[str, tuple[float, float, int]]:
        """concept -> (points, possible points, questions)."""
        table: dict[str, list] = {}
        for mark in self.marks:
            for concept in mark.concepts:
                row = table.setdefault(concept, [0.0, 0.0, 0])
                row[0] += mark.points / len(mark.concepts)
                row[1] += mark.max_points / len(mark.concepts)
                row[2] += 1
        return {k: tuple(v) for k, v in sorted(table.items())}


def mark_answer(item: Item, text: str | None) -> QuestionMark:
    asked = item.asked
    if text is None or not str(text).strip() or str(text).strip().lower() == "skip":
        status = "skipped"
    else:
        try:
            right, _ = item.check(asked.kind.parse(str(text), len(asked.options)))
            status = {True: "right", False: "wrong", None: "unchecked"}[right]
        except AnswerFormatError:
            status = "unreadable"
    return QuestionMark(asked.id, status, asked.points if status == "right" else 0.0, asked.points, None if text is None else str(text), asked.concepts)


def mark(quiz_id: str, student: str, items: list[Item], answers: dict[str, str | None]) -> QuizMark:
    return QuizMark(quiz_id, student, tuple(mark_answer(item, answers.get(item.asked.id)) for item in items))


def read_answers(path: Path) -> tuple[str, str, dict[str, str | None]]:
    """(quiz id, student id, answers by question id) from an answers file (YAML or JSON)."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise QuizError(f"{path}: no such answers file") from None
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise QuizError(f"{path}: not an answers file ({type(error).__name__})") from None
    if not isinstance(data, dict) or not isinstance(data.get("answers"), dict) or not data.get("student"):
        raise QuizError(f"{path}: an answers file needs quiz, student and answers (question id: answer)")
    answers = {str(k): (None if v is None else str(v)) for k, v in data["answers"].items()}
    return str(data.get("quiz", "")), str(data["student"]), answers


def write_answers(path: Path, quiz_id: str, student: str, answers: dict[str, str | None]) -> None:
    import yaml

    from attnlab.atomic import write_text_atomically

    write_text_atomically(Path(path), yaml.safe_dump({"quiz": quiz_id, "student": student, "answers": answers}, sort_keys=False, allow_unicode=True))


def write_csv(path: Path, results: list[QuizMark]) -> None:
    """One row per student: id, total, possible, then points per question."""
    question_ids = [m.id for m in results[0].marks] if results else []
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    rows = [["student", "score", "max_score", *question_ids]]
    for result in results:
        points = {m.id: m.points for m in result.marks}
        rows.append([result.student, _number(result.score), _number(result.max_score), *(_number(points.get(q, 0)) for q in question_ids)])
    with open(path, "w", newline="", encoding="utf-8") as stream:
        inert.write_csv(stream, rows)  # a student id comes from the student's answers file: never a formula


def _number(points: float) -> int | float:
    """Points as a CSV number: ``3``, not ``3.0``; rounded as ``:g`` shows them."""
    value = float(f"{points:g}")
    return int(value) if value.is_integer() else value
