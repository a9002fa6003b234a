"""Checks of a quiz beyond its schema: every variant drawable, every key computable, every
question checkable in practice without giving its exam answer away, every number's precision
stated and every answer rounded as asked accepted, every choice's answer among its options.

Parameters are drawn and keys computed for 200 exam students (every exam item of a pool) and
for every practice variant (what ``student-copy`` will build). A question practice cannot check
(neither parameters nor a pool) is refused, and so is one whose answer is the same in every
variant (practising it would give the exam's answer away). A question's ``where:`` must hold in
at least a quarter of draws (``MIN_WHERE_RATE``): a draw is retried at most ``MAX_DRAWS`` times,
so a rarer condition risks a student with no variant, and is better written as dependent
parameters. A number, vector or matrix question is marked on a grid twice its tolerance wide
(see ``kinds``), so the grid must be a power of ten (tolerance 0.005: two decimals; 0.0005:
three), and the prompt must say how many decimals it wants (unless every key is whole). For
every variant, lint computes the answer of a student who keeps ``rounded`` decimals (default:
those asked) along the way (``rounding``), rounds it as asked, and requires it to be marked
right: where it is not, it names the ``slack`` that would accept it. A question with a
``relative`` tolerance is marked against its magnitude and is exempt.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_DOWN, ROUND_HALF_UP, Decimal
from typing import Callable

from attnlab.quiz.errors import QuizError
from attnlab.quiz.kinds import KINDS, LETTERS
from attnlab.quiz.params import MAX_DRAWS, PRACTICE_VARIANTS, practice_seed, variant_seed
from attnlab.quiz.schema import Question, Quiz
from attnlab.quiz.variant import (
    POOL_ITEM,
    compute_key,
    draw_counted,
    keyed_for_values,
    kept_decimals,
    practice_variants,
    values_for_seed,
)
from attnlab.wording import count

LINT_STUDENTS = tuple(f"lint-{i}" for i in range(200))
"""Exam variants drawn per question: enough that a rare draw (a head that does not exist) shows."""
MIN_WHERE_RATE = 0.25
"""The least share of draws a ``where:`` may hold in (see ``params.MAX_DRAWS``)."""
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def grid_decimals(tolerance: float) -> int | None:
    """How many decimals the grid of ``tolerance`` keeps (0.005 → 2); None when it is not a power of ten."""
    step = Decimal(repr(2 * tolerance)).normalize()
    decimals = -step.as_tuple().exponent
    return decimals if step == Decimal(1).scaleb(-decimals) else None


TIE_EPSILON = Decimal("1e-9")
"""How near a half (in units of the last asked decimal) a value is on it: a key computed in floats
(0.6249999999999999) is the half a student who works exactly meets."""


def _on_grid(value: float, decimals: int) -> Decimal:
    """``value`` in units of the last asked decimal, a half wherever it is within ``TIE_EPSILON`` of one."""
    scaled = Decimal(repr(float(value))).scaleb(decimals)
    half = (scaled * 2).to_integral_value() / 2
    return half if half % 1 and abs(scaled - half) <= TIE_EPSILON * max(1, abs(half)) else scaled


def _rounded(value, decimals: int, rounding: str = ROUND_HALF_UP):
    """``value`` (a number, list or list of lists) rounded to ``decimals``, halves as ``rounding`` says:
    away from zero as most people round, toward zero for the other neighbour of a half."""
    if isinstance(value, (list, tuple)):
        return [_rounded(x, decimals, rounding) for x in value]
    return float(_on_grid(value, decimals).quantize(Decimal(1), rounding).scaleb(-decimals))


def _ties(value, decimals: int) -> bool:
    """Whether an element of ``value`` sits on a half at ``decimals`` (0.03125 at four): people round it
    either way (Python's round, numpy and f-strings to the even neighbour, most people up)."""
    return any(abs(_on_grid(x, decimals) % 1) == Decimal("0.5") for x in _elements(value))


def _elements(value) -> list[float]:
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _elements(item)]
    return [float(value)]


def _precision_problems(quiz: Quiz, question: Question, keys: list, reference_factory: Callable) -> list[str]:
    where = f"{quiz.id}: question {question.id}"
    decimals = grid_decimals(question.tolerance)
    if decimals is None:
        return [
            f"{where}: tolerance {question.tolerance:g} marks on a grid of {2 * question.tolerance:g}, which no number of decimals gives: use 0.005 (two decimals) or 0.0005 (three)"
        ]
    problems = []
    whole = all(x.is_integer() for _, _, keyed in keys for x in _elements(keyed.key))
    wants = rf"\b({decimals}|{WORDS.get(decimals, decimals)}) decimals?\b"
    if not whole and decimals > 0 and not re.search(wants, _prompts(question), re.IGNORECASE):
        problems.append(
            f"{where}: the prompt does not say the precision it marks: add \"({WORDS.get(decimals, decimals)} decimals)\""
        )
    if whole:
        return problems
    kept = kept_decimals(question)
    kind = KINDS[question.type]
    failed, worst, example, ties, tie = 0, 0.0, None, 0, None
    for who, values, keyed in keys:
        by_hand = _as_you_go(question, values, reference_factory, kept)
        for label, answer in (("the key", keyed.key), (f"an answer rounded to {kept} decimals along the way", by_hand)):
            if answer is None:
                continue
            if _ties(answer, decimals):  # both neighbours of a half must be right
                both = (_rounded(answer, decimals), _rounded(answer, decimals, ROUND_HALF_DOWN))
                wrong = [r for r in both if not kind.matches(r, keyed.key, keyed.tolerance, keyed.slack)]
                if wrong:
                    ties += 1
                    tie = tie or (
                        f"{who}: {label}, {_shown(answer)}, rounds to {_shown(both[0])} or {_shown(both[1])},"
                        f" and {_shown(wrong[0])} is marked wrong"
                    )
                continue
            rounded = _rounded(answer, decimals)
            if not kind.matches(rounded, keyed.key, keyed.tolerance, keyed.slack):
                failed += 1
                gap = max(abs(a - k) for a, k in zip(_elements(answer), _elements(keyed.key)))
                if gap > worst:
                    worst, example = gap, f"{who}: {label}, {_shown(rounded)}, for a key of {_shown(keyed.key)}"
    if ties:
        problems.append(
            f"{where}: {count(ties, 'answer')} {'sits' if ties == 1 else 'sit'} on a half at the precision asked"
            f" (e.g. {tie}): people round a half either way (Python's round and numpy to the even neighbour,"
            " most people up), so both must be right: draw parameters that cannot land on a half (where:),"
            " or ask for another precision"
        )
    if failed:
        problems.append(
            f"{where}: {failed} answers rounded as the prompt asks are marked wrong (e.g. {example}):"
            f" a slack of {_up(worst):g} accepts them"
            + ("" if question.rounded is not None else " (or say how many decimals to keep along the way; rounded:)")
        )
    return problems


def _as_you_go(question: Question, values: dict, reference_factory: Callable, decimals: int):
    """The answer of a student who rounds every intermediate result to ``decimals`` (None for a literal key)."""
    from attnlab.quiz.schema import Call, Expr

    answer = question.answer if question.pool is None else None
    if not isinstance(answer, (Expr, Call)):
        return None
    try:
        return compute_key(question, values, reference_factory, decimals=decimals)
    except (ValueError, TypeError, ArithmeticError, IndexError):
        return None


def _prompts(question: Question) -> str:
    items = question.pool.exam + question.pool.practice if question.pool else []
    return " ".join([question.prompt or ""] + [item.prompt for item in items])


def _shown(value) -> str:
    return str(_rounded(value, 6)) if isinstance(value, (list, tuple)) else f"{float(value):.6g}"


def _up(gap: float) -> float:
    """A slack a little over ``gap``, in two significant digits."""
    return float(f"{gap * 1.05:.2g}") if gap else 0.0


def _variants(quiz: Quiz, question: Question) -> list[tuple[str, object]]:
    """(who, seed or values) of every variant lint checks: 200 exam students (a pool's exam items) and practice's."""
    if question.pool is not None:
        exam = [(f"exam item {i}", {POOL_ITEM: ("exam", i)}) for i in range(len(question.pool.exam))]
    else:
        exam = [(f"student {s!r}", variant_seed(quiz.id, question.id, s)) for s in LINT_STUDENTS]
    return exam


def check_quiz(quiz: Quiz, reference_factory: Callable) -> list[str]:
    """Every problem of ``quiz`` beyond its schema, one line each (empty: none)."""
    problems = []
    for question in quiz.questions:
        where = f"{quiz.id}: question {question.id}"
        if not question.checked_in_practice:
            problems.append(
                f"{where}: practice cannot check it (without parameters or a pool, its only variant is the exam's):"
                " give it parameters, or a pool of equivalent items"
            )
        keys, failures, accepted, draws, avoided = [], [], 0, 0, 0
        variants = _variants(quiz, question)
        for who, seed in variants:
            if isinstance(seed, dict):
                values = seed
            else:
                try:
                    values, tries, practice_only = draw_counted(quiz, question, seed, who, "exam")
                except QuizError as error:
                    failures.append(str(error))
                    draws += MAX_DRAWS if getattr(error, "field", None) == "where" else 0  # every draw broke one
                    continue
                accepted, draws, avoided = accepted + 1, draws + tries, avoided + practice_only
            try:
                keys.append((who, values, keyed_for_values(quiz, question, values, who, reference_factory)))
            except QuizError as error:
                failures.append(str(error))
        practice = []
        for index in range(PRACTICE_VARIANTS) if question.params else [None]:
            try:  # each practice variant on its own, so that a failure names it
                if index is None:
                    practice += practice_variants(quiz, question)
                else:
                    who = f"practice variant {index}"
                    seed = practice_seed(quiz.id, question.id, index)
                    practice.append((who, values_for_seed(quiz, question, seed, who)))
            except QuizError as error:
                failures.append(str(error))
        for who, values in practice:
            try:
                keys.append((who, values, keyed_for_values(quiz, question, values, who, reference_factory, "practice")))
            except QuizError as error:
                failures.append(str(error))
        line = quiz.line_of(question.id, "where")
        allowed = accepted + avoided
        if question.where and draws and allowed / draws < MIN_WHERE_RATE:
            conditions = " and ".join(f"`{c}`" for c in question.where)
            problems.append(
                f"{where}: where {conditions}"
                + (f" (line {line})" if line else "")
                + f" held in {allowed} of {draws} draws ({allowed / draws:.0%});"
                f" a variant is given up after {MAX_DRAWS} draws,"
                f" so it must hold in at least {MIN_WHERE_RATE:.0%}: draw the parameters so that it holds more often (a range whose ends use earlier parameters)"
            )
        elif draws and accepted / draws < MIN_WHERE_RATE:
            problems.append(
                f"{where}: practice's variants, which an exam never asks, took {avoided} of {draws} draws:"
                f" the exam keeps {accepted / draws:.0%}, and a variant is given up after {MAX_DRAWS} draws,"
                f" so it must keep {MIN_WHERE_RATE:.0%}: give the parameters more values"
            )
        if failures:  # the first failing variant, with its parameters, and how many more
            total = len(variants) + (PRACTICE_VARIANTS if question.params else len(practice))
            more = f" (and {len(failures) - 1} more of {count(total, 'variant')})" if len(failures) > 1 else ""
            problems.append(failures[0] + more)
        if not failures:  # a question that cannot be drawn has that problem first
            problems += _secrecy_problems(question, keys, where)
        if KINDS[question.type].numeric and not question.relative and keys:
            problems += _precision_problems(quiz, question, keys, reference_factory)
        for who, _values, keyed in keys:
            outside = KINDS[question.type].keys_outside_options(keyed.key, len(keyed.asked.options))
            if outside:
                whose = f" of {who}" if question.pool else ""
                last = LETTERS[len(keyed.asked.options) - 1]
                problems.append(
                    f"{where}: the answer {', '.join(outside)} is not among the options (a to {last}){whose}"
                )
    return list(dict.fromkeys(problems))


def _secrecy_problems(question: Question, keys: list, where: str) -> list[str]:
    """A question whose every variant has one answer gives the exam's away in practice; and a slack
    so wide that a practice copy cannot keep every accepted answer."""
    problems = []
    kind = KINDS[question.type]
    forms = set()
    for who, _values, keyed in keys:
        try:
            forms.add(tuple(kind.accepted_forms(keyed.key, keyed.tolerance, keyed.slack)))
        except ValueError as error:
            problems.append(f"{where}: for {who}, {error}")
            return problems
    if question.params and len(keys) > 1 and len(forms) == 1:
        problems.append(
            f"{where}: every variant has the same answer, so practising it gives the exam's answer away:"
            " draw parameters the answer depends on, or use a pool"
        )
    return problems
