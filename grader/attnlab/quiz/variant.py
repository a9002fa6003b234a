"""A student's variant of a quiz: drawn parameters, rendered text, and the answer key.

The key is a literal, a safe arithmetic expression over the parameters, or
the result of calling a reference function from ``solutions/`` on them (only
the instructor's side ever computes keys; numpy and the reference are
imported only for questions that call one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from attnlab.quiz import params as drawing
from attnlab.quiz.arith import ExpressionError, evaluate
from attnlab.quiz.asked import AskedQuestion
from attnlab.quiz.kinds import KINDS, TELLS_CLOSE, close_note, effective_tolerance
from attnlab.quiz.errors import QuizError
from attnlab.quiz.schema import Call, Expr, Question, Quiz


@dataclass(frozen=True)
class KeyedMistake:
    name: str
    key: object
    explanation: str


@dataclass(frozen=True)
class KeyedQuestion:
    asked: AskedQuestion
    key: object
    explanation: str
    tolerance: float
    """The tolerance for this key (absolute, or relative to the key's size)."""
    mistakes: tuple[KeyedMistake, ...] = ()
    """This variant's common wrong answers (none equal to the key)."""
    tells_close: bool = False
    """Whether a wrong answer is told it is close (``kinds.TELLS_CLOSE`` of the sitting)."""

    def verdict(self, value):
        """The one rule, with the mistake a wrong answer matches, else whether it is close."""
        from attnlab.quiz.verdict import Verdict

        kind = self.asked.kind
        if kind.matches(value, self.key, self.tolerance):
            return Verdict(True, self.explanation, None)
        mistake = next((m for m in self.mistakes if kind.matches(value, m.key, self.tolerance)), None)
        if mistake is not None:
            return Verdict(False, f"{mistake.name}: {mistake.explanation}", mistake.name)
        if self.tells_close and kind.close(value, self.key, self.tolerance):
            return Verdict(False, close_note(self.tolerance), None, True)
        return Verdict(False, kind.layout_reason(value, kind.shape(self.key)), None)


def normalize_key(kind: str, raw):
    """The key in the form the answer kind compares: int, float, list, tuple, letter(s) or bool."""
    if kind == "integer":
        if isinstance(raw, bool) or float(raw) != round(float(raw)):
            raise ValueError(f"an integer question's answer must be whole, got {raw!r}")
        return int(round(float(raw)))
    if kind == "number":
        return float(raw)
    if kind == "vector":
        return [float(x) for x in raw]
    if kind == "matrix":
        return [[float(x) for x in row] for row in raw]
    if kind == "shape":
        return tuple(int(x) for x in raw)
    if kind == "single":
        return str(raw).strip().lower()
    if kind == "multiple":
        letters = raw if isinstance(raw, (list, tuple)) else str(raw).replace(",", " ").split()
        return sorted({str(x).strip().lower() for x in letters})
    if kind == "truefalse":
        if not isinstance(raw, bool):
            raise ValueError(f"a truefalse question's answer must be true or false, got {raw!r}")
        return raw
    raise ValueError(f"unknown question type {kind!r}")


def _plain(value):
    """numpy results as Python numbers and lists."""
    return value.tolist() if hasattr(value, "tolist") else value


def _call_reference(answer: Call, values: dict, reference_factory: Callable):
    import numpy as np

    def substituted(item):
        """Parameter names replaced by their values, at any depth (``args: [[a, 0]]``)."""
        if isinstance(item, str) and item in values:
            return values[item]
        return [substituted(x) for x in item] if isinstance(item, list) else item

    def argument(item):
        item = substituted(item)
        return np.asarray(item) if isinstance(item, list) else item  # integer lists stay integers (indices)

    function = getattr(reference_factory(), answer.call)
    result = function(*(argument(a) for a in answer.args), **{k: argument(v) for k, v in answer.kwargs.items()})
    def position(index):
        return values[index] if isinstance(index, str) else index

    for index in answer.select:
        result = result[tuple(position(i) for i in index)] if isinstance(index, list) else result[position(index)]
    return _plain(result)


def compute_key(question: Question, values: dict, reference_factory: Callable, answer=None):
    """The key (or, given ``answer``, a mistake's value) of the variant drawn as ``values``."""
    answer = question.answer if answer is None else answer
    if isinstance(answer, Expr):
        scalars = {k: v for k, v in values.items() if isinstance(v, (int, float))}
        raw = evaluate(answer.expr, scalars)
    elif isinstance(answer, Call):
        raw = _call_reference(answer, values, reference_factory)
    else:
        raw = answer
    return normalize_key(question.type, raw)


def drawn_values(quiz: Quiz, question: Question, student: str, sitting: str = "exam") -> dict:
    return values_for_seed(quiz, question, drawing.seed_for(quiz.id, question.id, student, sitting), f"student {student!r}")


def values_for_seed(quiz: Quiz, question: Question, seed: int, who: str) -> dict:
    return draw_counted(quiz, question, seed, who)[0]


def draw_counted(quiz: Quiz, question: Question, seed: int, who: str) -> tuple[dict, int]:
    """(the values of the variant drawn from ``seed``, how many draws its ``where:`` took); ``who``
    names the variant in errors."""
    specs = {k: v.model_dump(exclude_none=True) for k, v in question.params.items()}
    try:
        return drawing.draw_counted(specs, seed, question.where)
    except (ValueError, TypeError) as error:  # an empty range, a condition never met, an expr that fails
        field = getattr(error, "field", "params")
        line = quiz.line_of(question.id, field)
        failure = QuizError(f"{quiz.id}: question {question.id}: the parameters cannot be drawn for {who}" + (f" (line {line})" if line else "") + f": {error}")
        failure.field = field  # lint counts a condition that never held apart from a broken parameter
        raise failure from None


def _asked(question: Question, values: dict) -> AskedQuestion:
    return AskedQuestion(
        id=question.id,
        type=question.type,
        prompt=drawing.render(question.prompt, values),
        options=tuple(drawing.render(o, values) for o in question.options or ()),
        points=question.points,
        hint=drawing.render(question.hint, values),
        concepts=tuple(question.concepts),
        tolerance=question.tolerance,
    )


def asked_question(quiz: Quiz, question: Question, student: str, sitting: str = "exam") -> AskedQuestion:
    """The question as this student sees it in ``sitting``; cheap: no key is computed."""
    return _asked(question, drawn_values(quiz, question, student, sitting))


def keyed_for_values(quiz: Quiz, question: Question, values: dict, who: str, reference_factory: Callable, sitting: str = "exam") -> KeyedQuestion:
    """The key of the variant drawn as ``values`` for ``sitting``; ``who`` names the variant in errors."""
    try:
        key = compute_key(question, values, reference_factory)
    except (ExpressionError, ValueError, TypeError, IndexError, KeyError, AttributeError) as error:
        drawn = ", ".join(f"{k}={drawing.format_value(v).strip()}" for k, v in values.items())
        raise QuizError(f"{quiz.id}: question {question.id}: the answer cannot be computed for {who}" + (f" ({drawn})" if drawn else "") + f": {error}") from None
    rendered = {**values, "answer": KINDS[question.type].format(key) if question.type != "single" else f"{key})"}
    tolerance = effective_tolerance(question.type, key, question.tolerance, question.relative)
    mistakes = []
    for mistake in question.mistakes:
        try:
            value = compute_key(question, values, reference_factory, mistake.answer)
        except (ExpressionError, ValueError, TypeError, IndexError, KeyError, AttributeError) as error:
            raise QuizError(f"{quiz.id}: question {question.id}: mistake {mistake.name!r} cannot be computed for {who}: {error}") from None
        if not KINDS[question.type].matches(value, key, tolerance):  # where a mistake gives the key, the answer is right
            mistakes.append(KeyedMistake(mistake.name, value, drawing.render(mistake.explanation, values)))
    return KeyedQuestion(_asked(question, values), key, drawing.render(question.explanation, rendered), tolerance, tuple(mistakes), question.type in TELLS_CLOSE[sitting])


def keyed_question(quiz: Quiz, question: Question, student: str, reference_factory: Callable, sitting: str = "exam") -> KeyedQuestion:
    return keyed_for_values(quiz, question, drawn_values(quiz, question, student, sitting), f"student {student!r}", reference_factory, sitting)


def keyed_quiz(quiz: Quiz, student: str, reference_factory: Callable, sitting: str = "exam") -> list[KeyedQuestion]:
    return [keyed_question(quiz, q, student, reference_factory, sitting) for q in quiz.questions]
