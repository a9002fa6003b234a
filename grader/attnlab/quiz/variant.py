"""A student's variant of a quiz: drawn parameters (or a pool's item), rendered text, and the answer key.

The key is a literal, a safe arithmetic expression over the parameters, or
the result of calling a reference function from ``solutions/`` on them (only
the instructor's side ever computes keys; numpy and the reference are
imported only for questions that call one). A question with a pool has no
parameters: its variant is one of the pool's items, an exam item for an exam
and a practice item for practice. ``compute_key`` with ``decimals`` gives the
answer of a student who rounds every intermediate result (``rounding``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from attnlab.quiz import params as drawing
from attnlab.quiz.arith import ExpressionError, evaluate
from attnlab.quiz.asked import AskedQuestion
from attnlab.quiz.kinds import close_note, kind_named
from attnlab.quiz.errors import QuizError
from attnlab.quiz.schema import Call, Expr, Question, Quiz


@dataclass(frozen=True)
class KeyedMistake:
    name: str
    key: object
    explanation: str


POOL_ITEM = "pool item"
"""The key of a pool question's values: (sitting, index of the item); never a parameter's name."""


@dataclass(frozen=True)
class KeyedQuestion:
    asked: AskedQuestion
    key: object
    explanation: str
    tolerance: float
    """The tolerance for this key (absolute, or relative to the key's size)."""
    slack: float | tuple[float, ...] = 0.0
    """What rounding along the way may add to a right answer's error, per element (``kinds.cells``)."""
    mistakes: tuple[KeyedMistake, ...] = ()
    """This variant's common wrong answers (none equal to the key)."""
    tells_close: bool = False
    """Whether a wrong answer is told it is close (``Kind.tells_close`` in the sitting)."""

    def verdict(self, value):
        """The one rule, with the mistake a wrong answer matches, else whether it is close."""
        from attnlab.quiz.verdict import Verdict

        kind = self.asked.kind
        if kind.matches(value, self.key, self.tolerance, self.slack):
            return Verdict(True, self.explanation, None)
        # A mistake is named at its own grid point (no slack): a hint, not a mark.
        mistake = next((m for m in self.mistakes if kind.matches(value, m.key, self.tolerance)), None)
        if mistake is not None:
            return Verdict(False, f"{mistake.name}: {mistake.explanation}", mistake.name)
        if self.tells_close and kind.close(value, self.key, self.tolerance, self.slack):
            return Verdict(False, close_note(self.tolerance), None, True)
        return Verdict(False, kind.layout_reason(value, kind.shape(self.key)), None)


def normalize_key(kind: str, raw):
    """The key in the form the answer kind compares: int, float, list, tuple, letter(s) or bool."""
    return kind_named(kind).normalize_key(raw)


def _plain(value):
    """numpy results as Python numbers and lists."""
    return value.tolist() if hasattr(value, "tolist") else value


def _call_reference(answer: Call, values: dict, reference_factory: Callable, decimals: int | None = None):
    import numpy as np

    def substituted(item):
        """Parameter names replaced by their values, at any depth (``args: [[a, 0]]``)."""
        if isinstance(item, str) and item in values:
            return values[item]
        return [substituted(x) for x in item] if isinstance(item, list) else item

    def argument(item):
        item = substituted(item)
        if isinstance(item, list) and decimals is not None:
            from attnlab.quiz.rounding import rounding_array

            return rounding_array(item, decimals)
        return np.asarray(item) if isinstance(item, list) else item  # integer lists stay integers (indices)

    function = getattr(reference_factory(), answer.call)
    result = function(*(argument(a) for a in answer.args), **{k: argument(v) for k, v in answer.kwargs.items()})

    def position(index):
        return values[index] if isinstance(index, str) else index

    for index in answer.select:
        result = result[tuple(position(i) for i in index)] if isinstance(index, list) else result[position(index)]
    if decimals is not None:
        from attnlab.quiz.rounding import plain_rounded

        return plain_rounded(result, decimals)
    return _plain(result)


@dataclass(frozen=True)
class Variant:
    """What a student reads and answers in one variant: the question's own fields, or a pool item's."""

    prompt: str
    options: list[str] | None
    answer: object
    mistakes: list
    hint: str
    explanation: str


def item_of(question: Question, values: dict) -> Variant:
    """The prompt, options, answer, mistakes, hint and explanation of the variant drawn as ``values``."""
    if question.pool is None:
        q = question
        return Variant(q.prompt, q.options, q.answer, q.mistakes, q.hint, q.explanation)
    sitting, index = values[POOL_ITEM]
    item = question.items(sitting)[index]
    hint, explanation = item.hint or question.hint, item.explanation or question.explanation
    return Variant(item.prompt, item.options, item.answer, item.mistakes, hint, explanation)


def compute_key(
    question: Question, values: dict, reference_factory: Callable, answer=None, decimals: int | None = None
):
    """The key (or, given ``answer``, a mistake's value) of the variant drawn as ``values``; with
    ``decimals``, as computed by a student who rounds every intermediate result to that many."""
    answer = item_of(question, values).answer if answer is None else answer
    if isinstance(answer, Expr):
        names = {k: v for k, v in values.items() if k != POOL_ITEM}
        raw = evaluate(answer.expr, names, decimals)
    elif isinstance(answer, Call):
        raw = _call_reference(answer, values, reference_factory, decimals)
    else:
        raw = answer
    return normalize_key(question.type, raw)


def pool_index(quiz: Quiz, question: Question, student: str, sitting: str) -> int:
    """Which of the pool's items for ``sitting`` a student meets: from the exam seed, or the practice pick."""
    items = question.items(sitting)
    if sitting == "exam":
        return drawing.variant_seed(quiz.id, question.id, student) % len(items)
    return drawing.practice_index(quiz.id, question.id, student, len(items))


def drawn_values(quiz: Quiz, question: Question, student: str, sitting: str = "exam") -> dict:
    if question.pool is not None:
        return {POOL_ITEM: (sitting, pool_index(quiz, question, student, sitting))}
    seed = drawing.seed_for(quiz.id, question.id, student, sitting)
    return values_for_seed(quiz, question, seed, f"student {student!r}", sitting)


def practice_variants(quiz: Quiz, question: Question) -> list[tuple[str, dict]]:
    """(who, values) of every variant practice may ask: the pool's practice items, or the practice
    seeds' draws; none for a question practice does not check."""
    if question.pool is not None:
        return [(f"practice item {i}", {POOL_ITEM: ("practice", i)}) for i in range(len(question.pool.practice))]
    if not question.checked_in_practice:
        return []
    indices = range(drawing.PRACTICE_VARIANTS) if question.params else [0]
    seeds = ((f"practice variant {i}", drawing.practice_seed(quiz.id, question.id, i)) for i in indices)
    return [(who, values_for_seed(quiz, question, seed, who, "practice")) for who, seed in seeds]


def values_for_seed(quiz: Quiz, question: Question, seed: int, who: str, sitting: str = "practice") -> dict:
    return draw_counted(quiz, question, seed, who, sitting)[0]


def draw_counted(quiz: Quiz, question: Question, seed: int, who: str, sitting: str = "exam") -> tuple[dict, int, int]:
    """(the values of the variant drawn from ``seed``, how many draws it took, how many of those its
    ``where:`` allowed but were practice variants, which an exam avoids); ``who`` names the variant in errors."""
    specs = {k: v.model_dump(exclude_none=True) for k, v in question.params.items()}
    try:
        exam = sitting == "exam" and specs
        avoid = drawing.practice_values(specs, quiz.id, question.id, question.where) if exam else ()
        return drawing.draw_counted(specs, seed, question.where, avoid)
    except (ValueError, TypeError) as error:  # an empty range, a condition never met, an expr that fails
        field = getattr(error, "field", "params")
        line = quiz.line_of(question.id, field)
        failure = QuizError(
            f"{quiz.id}: question {question.id}: the parameters cannot be drawn for {who}"
            + (f" (line {line})" if line else "")
            + f": {error}"
        )
        failure.field = field  # lint counts a condition that never held apart from a broken parameter
        raise failure from None


def _asked(question: Question, values: dict) -> AskedQuestion:
    item = item_of(question, values)
    return AskedQuestion(
        id=question.id,
        type=question.type,
        prompt=drawing.render(item.prompt, values),
        options=tuple(drawing.render(o, values) for o in item.options or ()),
        points=question.points,
        hint=drawing.render(item.hint, values),
        concepts=tuple(question.concepts),
        tolerance=question.tolerance,
        expressions=question.expressions,
    )


def asked_question(quiz: Quiz, question: Question, student: str, sitting: str = "exam") -> AskedQuestion:
    """The question as this student sees it in ``sitting``; cheap: no key is computed."""
    return _asked(question, drawn_values(quiz, question, student, sitting))


def keyed_for_values(
    quiz: Quiz, question: Question, values: dict, who: str, reference_factory: Callable, sitting: str = "exam"
) -> KeyedQuestion:
    """The key of the variant drawn as ``values`` for ``sitting``; ``who`` names the variant in errors."""
    try:
        key = compute_key(question, values, reference_factory)
    except (ExpressionError, ValueError, TypeError, IndexError, KeyError, AttributeError) as error:
        drawn = ", ".join(f"{k}={drawing.format_value(v).strip()}" for k, v in values.items())
        raise QuizError(
            f"{quiz.id}: question {question.id}: the answer cannot be computed for {who}"
            + (f" ({drawn})" if drawn else "")
            + f": {error}"
        ) from None
    item = item_of(question, values)
    kind = kind_named(question.type)
    rendered = {**values, "answer": kind.key_text(key)}
    tolerance = kind.effective_tolerance(key, question.tolerance, question.relative)
    slack = element_slack(question, values, key, reference_factory)
    mistakes = []
    for mistake in item.mistakes:
        try:
            value = compute_key(question, values, reference_factory, mistake.answer)
        except (ExpressionError, ValueError, TypeError, IndexError, KeyError, AttributeError) as error:
            raise QuizError(
                f"{quiz.id}: question {question.id}: mistake {mistake.name!r} cannot be computed for {who}: {error}"
            ) from None
        if not kind.matches(value, key, tolerance, slack):  # where it is the key, the answer is right
            mistakes.append(KeyedMistake(mistake.name, value, drawing.render(mistake.explanation, values)))
    explained = drawing.render(item.explanation, rendered)
    tells_close = kind.tells_close(sitting)
    return KeyedQuestion(_asked(question, values), key, explained, tolerance, slack, tuple(mistakes), tells_close)


def kept_decimals(question: Question) -> int:
    """The decimals a student keeps along the way: ``rounded``, else those the question asks for."""
    from decimal import Decimal

    if question.rounded is not None:
        return question.rounded
    return max(0, -Decimal(repr(2 * question.tolerance)).normalize().as_tuple().exponent)


def element_slack(question: Question, values: dict, key, reference_factory: Callable):
    """The question's slack for each element the lessons' rounding along the way can change; none for
    an element it leaves exact (a masked weight's 0, a lone key's 1): computed from ``rounding``."""
    if not question.slack:
        return 0.0
    try:
        path = compute_key(question, values, reference_factory, decimals=kept_decimals(question))
    except (ExpressionError, ValueError, TypeError, ArithmeticError, IndexError, KeyError, AttributeError):
        return question.slack
    kind = kind_named(question.type)
    by_hand, exact = kind.elements(path), kind.elements(key)
    if len(by_hand) != len(exact):
        return question.slack
    return tuple(0.0 if float(p) == float(k) else question.slack for p, k in zip(by_hand, exact))


def keyed_question(
    quiz: Quiz, question: Question, student: str, reference_factory: Callable, sitting: str = "exam"
) -> KeyedQuestion:
    return keyed_for_values(
        quiz,
        question,
        drawn_values(quiz, question, student, sitting),
        f"student {student!r}",
        reference_factory,
        sitting,
    )


def keyed_quiz(quiz: Quiz, student: str, reference_factory: Callable, sitting: str = "exam") -> list[KeyedQuestion]:
    return [keyed_question(quiz, q, student, reference_factory, sitting) for q in quiz.questions]
