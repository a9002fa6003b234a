"""Checks of a quiz beyond its schema: every variant drawable, every key computable, every
number's precision stated and accepted, every choice's answer among its options.

Parameters are drawn and keys computed for 200 exam students and for every
variant of the practice pool (what ``student-copy`` will build). A question's
``where:`` must hold in at least a quarter of draws (``MIN_WHERE_RATE``): a
draw is retried at most ``MAX_DRAWS`` times, so a rarer condition risks a
student with no variant, and is better written as dependent parameters. A number, vector or matrix
question is marked on a grid twice its tolerance wide (see ``kinds``), so the
grid must be a power of ten (tolerance 0.005: two decimals; 0.0005: three),
the prompt must say how many decimals it wants (unless every key is whole),
and the key rounded to that many decimals must be accepted. A question with a
``relative`` tolerance is marked against its magnitude and is exempt.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Callable

from attnlab.quiz.errors import QuizError
from attnlab.quiz.kinds import KINDS
from attnlab.quiz.params import MAX_DRAWS, PRACTICE_VARIANTS, practice_seed, variant_seed
from attnlab.quiz.schema import Question, Quiz
from attnlab.quiz.variant import draw_counted, keyed_for_values
from attnlab.wording import count

LINT_STUDENTS = tuple(f"lint-{i}" for i in range(200))
"""Exam variants drawn per question: enough that a rare draw (a head that does not exist) shows."""
MIN_WHERE_RATE = 0.25
"""The least share of draws a ``where:`` may hold in (see ``params.MAX_DRAWS``)."""
NUMERIC = ("number", "vector", "matrix")
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def grid_decimals(tolerance: float) -> int | None:
    """How many decimals the grid of ``tolerance`` keeps (0.005 → 2); None when it is not a power of ten."""
    step = Decimal(repr(2 * tolerance)).normalize()
    decimals = -step.as_tuple().exponent
    return decimals if step == Decimal(1).scaleb(-decimals) else None


def _rounded(value, decimals: int):
    """``value`` (a number, list or list of lists) rounded as a person rounds, to ``decimals``."""
    if isinstance(value, (list, tuple)):
        return [_rounded(x, decimals) for x in value]
    return float(Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP))


def _elements(value) -> list[float]:
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _elements(item)]
    return [float(value)]


def _precision_problems(quiz: Quiz, question: Question, keys: list) -> list[str]:
    where = f"{quiz.id}: question {question.id}"
    decimals = grid_decimals(question.tolerance)
    if decimals is None:
        return [f"{where}: tolerance {question.tolerance:g} marks on a grid of {2 * question.tolerance:g}, which no number of decimals gives: use 0.005 (two decimals) or 0.0005 (three)"]
    problems = []
    whole = all(x.is_integer() for _, keyed in keys for x in _elements(keyed.key))
    wants = rf"\b({decimals}|{WORDS.get(decimals, decimals)}) decimals?\b"
    if not whole and decimals > 0 and not re.search(wants, question.prompt, re.IGNORECASE):
        problems.append(f"{where}: the prompt does not say the precision it marks: add \"({WORDS.get(decimals, decimals)} decimals)\"")
    for who, keyed in keys:
        rounded = _rounded(keyed.key, decimals)
        if not KINDS[question.type].matches(rounded, keyed.key, keyed.tolerance):
            problems.append(f"{where}: for {who}, the key rounded to {decimals} decimals ({rounded}) is marked wrong")
    return problems


def check_quiz(quiz: Quiz, reference_factory: Callable) -> list[str]:
    """Every problem of ``quiz`` beyond its schema, one line each (empty: none)."""
    problems = []
    for question in quiz.questions:
        seeds = [(f"student {s!r}", variant_seed(quiz.id, question.id, s)) for s in LINT_STUDENTS]
        seeds += [(f"practice variant {i}", practice_seed(quiz.id, question.id, i)) for i in range(PRACTICE_VARIANTS if question.params else 1)]
        keys, failures, accepted, draws = [], [], 0, 0
        for who, seed in seeds:
            try:
                values, tries = draw_counted(quiz, question, seed, who)
            except QuizError as error:
                failures.append(str(error))
                draws += MAX_DRAWS if getattr(error, "field", None) == "where" else 0  # every draw broke a condition
                continue
            accepted, draws = accepted + 1, draws + tries
            try:
                keys.append((who, keyed_for_values(quiz, question, values, who, reference_factory)))
            except QuizError as error:
                failures.append(str(error))
        if question.where and draws and accepted / draws < MIN_WHERE_RATE:
            line = quiz.line_of(question.id, "where")
            conditions = " and ".join(f"`{c}`" for c in question.where)
            problems.append(
                f"{quiz.id}: question {question.id}: where {conditions}" + (f" (line {line})" if line else "")
                + f" held in {accepted} of {draws} draws ({accepted / draws:.0%}); a variant is given up after {MAX_DRAWS} draws,"
                f" so it must hold in at least {MIN_WHERE_RATE:.0%}: draw the parameters so that it holds more often (a range whose ends use earlier parameters)"
            )
        if failures:  # the first failing variant, with its parameters, and how many more
            problems.append(failures[0] + (f" (and {len(failures) - 1} more of {count(len(seeds), 'variant')})" if len(failures) > 1 else ""))
        if question.type in NUMERIC and not question.relative and keys:
            problems += _precision_problems(quiz, question, keys)
        if question.type in ("single", "multiple"):
            letters = "abcdefghijklmnopqrstuvwxyz"[: len(question.options or [])]
            for who, keyed in keys:
                outside = [x for x in ([keyed.key] if question.type == "single" else keyed.key) if x not in letters]
                if outside:
                    problems.append(f"{quiz.id}: question {question.id}: the answer {', '.join(outside)} is not among the options (a to {letters[-1]})")
    return list(dict.fromkeys(problems))
