"""Mark answers: per question right, wrong, unreadable (with why), skipped or unchecked; totals and concepts.

``grade_files`` marks a class's answers files: a file that cannot be read is
reported with its reason and the others are still graded; two files claiming
one student, and a file answering another quiz, are flagged on their rows. An
answers file written by an exam sitting names the variant it answered (a hash
of the questions as the student read them): a file whose student id draws
another variant (a mistyped id) is not graded against questions its student
never saw. Answers files are read with a bounded loader (size, no YAML aliases).
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from attnlab import inert
from attnlab.quiz.items import Item
from attnlab.quiz.kinds import AnswerFormatError
from attnlab.quiz.errors import QuizError, yaml_place


@dataclass(frozen=True)
class QuestionMark:
    id: str
    status: str
    """``right``, ``wrong``, ``unreadable``, ``skipped`` or ``unchecked`` (an exam copy: nothing to check against)."""
    points: float
    max_points: float
    answer: str | None
    concepts: tuple[str, ...]
    mistake: str | None = None
    """The common mistake a wrong answer matches (the question's ``mistakes:``)."""
    close: bool = False
    """A wrong answer right to one decimal fewer than the question asks (``kinds.close_note``)."""
    reason: str | None = None
    """Why an unreadable answer could not be read (``a comma inside a number``)."""


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

    def by_concept(self, checked_only: bool = False) -> dict[str, tuple[float, float, int]]:
        """concept -> (points, possible points, questions); ``checked_only`` leaves out the
        questions nothing checks (worth no points here)."""
        table: dict[str, list] = {}
        for mark in self.marks:
            if checked_only and mark.max_points == 0:
                continue
            for concept in mark.concepts:
                row = table.setdefault(concept, [0.0, 0.0, 0])
                row[0] += mark.points / len(mark.concepts)
                row[1] += mark.max_points / len(mark.concepts)
                row[2] += 1
        return {k: tuple(v) for k, v in sorted(table.items())}


def mark_answer(item: Item, text: str | None) -> QuestionMark:
    asked = item.asked
    mistake, close, reason = None, False, None
    if text is None or not str(text).strip() or str(text).strip().lower() == "skip":
        status = "skipped"
    else:
        try:
            value = asked.read(str(text))
            refused = item.refuse(value)  # a wrong size is refused in practice; here it is unreadable, with why
            if refused:
                raise AnswerFormatError(refused)
            verdict = item.check(value)
            status, mistake, close = (
                {True: "right", False: "wrong", None: "unchecked"}[verdict.right],
                verdict.mistake,
                verdict.close,
            )
        except AnswerFormatError as error:
            status, reason = "unreadable", str(error)
    possible = asked.points if item.checked else 0.0  # a question nothing checks counts in no total
    earned = asked.points if status == "right" else 0.0
    typed = None if text is None else str(text)
    return QuestionMark(asked.id, status, earned, possible, typed, asked.concepts, mistake, close, reason)


def mark(quiz_id: str, student: str, items: list[Item], answers: dict[str, str | None]) -> QuizMark:
    return QuizMark(quiz_id, student, tuple(mark_answer(item, answers.get(item.asked.id)) for item in items))


MAX_ANSWERS_BYTES = 256 * 1024
"""An answers file for a quiz of a hundred questions is a few kilobytes."""


def _load_yaml(text: str):
    """``yaml.safe_load`` without aliases: an answers file never needs them, and nested ones explode."""
    import yaml

    class NoAliases(yaml.SafeLoader):
        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                raise yaml.composer.ComposerError(
                    None, None, "an alias (*name) is not allowed in an answers file", self.peek_event().start_mark
                )
            return super().compose_node(parent, index)

    return yaml.load(text, Loader=NoAliases)  # noqa: S506 (a SafeLoader subclass)


@dataclass(frozen=True)
class AnswersFile:
    quiz: str
    student: str
    answers: dict[str, str | None]
    variant: str | None = None
    """The tag of the questions the answers were given to (``variant_tag``); None in a file without one."""


def variant_tag(items: list[Item]) -> str:
    """A short hash of the questions as a student reads them: the variant an answers file answered."""
    text = "\0".join(f"{i.asked.id}\0{i.asked.prompt}\0" + "\0".join(i.asked.options) for i in items)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def read_answers(path: Path) -> AnswersFile:
    """The quiz id, student id, answers by question id and variant tag of an answers file (YAML or JSON)."""
    import yaml

    try:
        with open(path, "rb") as stream:
            raw = stream.read(MAX_ANSWERS_BYTES + 1)
    except FileNotFoundError:
        raise QuizError(f"{path}: no such answers file") from None
    except IsADirectoryError:
        raise QuizError(f"{path}: a folder, not an answers file") from None
    except OSError as error:
        raise QuizError(f"{path}: cannot be read ({error.strerror})") from None
    if len(raw) > MAX_ANSWERS_BYTES:
        raise QuizError(f"{path}: too large for an answers file (over {MAX_ANSWERS_BYTES // 1024} KiB)")
    try:
        text = raw.decode("utf-8")
        data = _load_yaml(text)
    except UnicodeDecodeError:
        raise QuizError(f"{path}: not an answers file (not UTF-8 text)") from None
    except yaml.YAMLError as error:
        line, problem = yaml_place(error, text)
        raise QuizError(f"{path}:{line}: not an answers file ({problem})") from None
    except RecursionError:
        raise QuizError(f"{path}: not an answers file (nested too deeply)") from None
    if not isinstance(data, dict) or not isinstance(data.get("answers"), dict) or not data.get("student"):
        raise QuizError(f"{path}: an answers file needs quiz, student and answers (question id: answer)")
    answers = {str(k): (None if v is None else str(v)) for k, v in data["answers"].items()}
    variant = data.get("variant")
    return AnswersFile(
        str(data.get("quiz", "")), str(data["student"]), answers, None if variant is None else str(variant)
    )


def write_answers(
    path: Path, quiz_id: str, student: str, answers: dict[str, str | None], variant: str | None = None
) -> None:
    import yaml

    from attnlab.atomic import write_text_atomically

    data = {"quiz": quiz_id, "student": student, **({"variant": variant} if variant else {}), "answers": answers}
    write_text_atomically(Path(path), yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


@dataclass(frozen=True)
class GradedFile:
    """One answers file of a class: its mark, or why it has none, and what is wrong with it."""

    path: Path
    student: str | None
    """The id the file claims (None when the file cannot be read)."""
    result: QuizMark | None
    """None when the file was not graded (unreadable, or for another quiz)."""
    problems: tuple[str, ...]


def grade_files(quiz_id: str, items_for: Callable[[str], list[Item]], paths: list[Path]) -> list[GradedFile]:
    """Mark every answers file; a bad one is reported on its row and never stops the others."""
    read: list[tuple[Path, tuple | None, str | None]] = []
    for path in paths:
        try:
            read.append((Path(path), read_answers(path), None))
        except QuizError as error:
            reason = re.sub(
                r"^:(\d+):", r"line \1:", str(error).removeprefix(str(path))
            )  # the path is on the row already
            read.append((Path(path), None, reason.lstrip(":").strip() or "cannot be read"))
    claims: dict[str, list[Path]] = defaultdict(list)
    for path, content, _ in read:
        if content is not None:
            claims[content.student].append(path)
    graded = []
    for path, content, error in read:
        if content is None:
            graded.append(GradedFile(path, None, None, (error,)))
            continue
        student = content.student
        problems = []
        others = [str(p) for p in claims[student] if p != path]
        if others:
            problems.append(f"student {student!r} is also claimed by {', '.join(others)}")
        if content.quiz and content.quiz != quiz_id:
            problems.append(f"answers quiz {content.quiz!r}, not {quiz_id!r}: not graded")
            graded.append(GradedFile(path, student, None, tuple(problems)))
            continue
        try:
            items = items_for(student)
            if content.variant and content.variant != variant_tag(items):
                problems.append(f"answers other questions than {student!r}'s variant (a mistyped id?): not graded")
                graded.append(GradedFile(path, student, None, tuple(problems)))
                continue
            result = mark(quiz_id, student, items, content.answers)
        except QuizError as error:
            graded.append(GradedFile(path, student, None, (*problems, str(error))))
            continue
        graded.append(GradedFile(path, student, result, tuple(problems)))
    return graded


def write_csv(path: Path, graded: list[GradedFile], question_ids: list[str]) -> None:
    """One row per answers file: student, total, possible, the file, its problems, the mistakes it
    matched (``question: mistake; ...``), the questions answered close (``question; ...``), why each
    unreadable answer could not be read (``question: reason; ...``), then points per question."""
    from attnlab.atomic import write_text_atomically
    import io

    rows = [["student", "score", "max_score", "file", "problem", "mistakes", "close", "unreadable", *question_ids]]
    for row in graded:
        result = row.result
        points = {m.id: m.points for m in result.marks} if result else {}
        totals = [_number(result.score), _number(result.max_score)] if result else ["", ""]
        cells = [_number(points.get(q, 0)) if result else "" for q in question_ids]
        mistakes = "; ".join(f"{m.id}: {m.mistake}" for m in result.marks if m.mistake) if result else ""
        close = "; ".join(m.id for m in result.marks if m.close) if result else ""
        unread = [m for m in result.marks if m.status == "unreadable"] if result else []
        unreadable = "; ".join(f"{m.id}: {m.reason}" for m in unread)
        problems = "; ".join(row.problems)
        rows.append([row.student or "", *totals, str(row.path), problems, mistakes, close, unreadable, *cells])
    out = io.StringIO()
    inert.write_csv(out, rows)  # a student id comes from the student's answers file: never a formula
    write_text_atomically(Path(path), out.getvalue())


def _number(points: float) -> int | float:
    """Points as a CSV number: ``3``, not ``3.0``; rounded as ``:g`` shows them."""
    value = float(f"{points:g}")
    return int(value) if value.is_integer() else value


def class_mistakes(graded: list[GradedFile]) -> list[tuple[str, str, int]]:
    """(question, mistake, how many students made it), most common first: what the class got wrong."""
    from collections import Counter

    counts = Counter((m.id, m.mistake) for row in graded if row.result for m in row.result.marks if m.mistake)
    return [(question, mistake, n) for (question, mistake), n in counts.most_common()]
