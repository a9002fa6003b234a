"""Answer kinds: how a typed answer is parsed (``reading``), and the one rule that says whether it is right.

Each kind turns the student's text into a value (or says why it cannot) and
gives the answer's *canonical form*: one string; an answer is right exactly
when its form is one of the key's *accepted forms*. That is the only rule, for
the instructor's marking and for a practice copy (which holds hashes of the
accepted forms, never the key). Numbers are compared on a grid twice the
question's tolerance wide: each element is rounded to the nearest grid point
(in decimal, halves away from zero), so with the default tolerance 0.005 an
answer is right when it agrees with the key rounded to two decimals. A
question's ``slack`` widens that by the error that rounding intermediate
results adds: an element is right when its grid point is one that some value
within its slack of the key rounds to. The slack is per element (``variant``
gives none to an element that rounding along the way leaves exact, such as a
masked weight's 0); a single number stands for every element.

A wrong number (vector, matrix) is *close* when it agrees with the key (within
its slack) on a grid ``COARSER`` times wider: right to one decimal fewer than the question
asks. Where that is said depends on the sitting (``TELLS_CLOSE``): the
instructor's marking says it of every numeric answer; practice only of a single
number, the one case a practice copy can check without making a brute force
cheaper (see ``student_copy``).
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal
from dataclasses import dataclass

from attnlab.quiz import reading
from attnlab.quiz.arith import TOO_LARGE
from attnlab.quiz.reading import AnswerFormatError
from attnlab.wording import count, with_article

__all__ = ["AnswerFormatError", "KINDS", "Kind"]
MAX_ACCEPTED_FORMS = 256
"""Accepted forms of one answer at most: a practice copy keeps a hash of each."""


def _number(value, what="a number") -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AnswerFormatError(f"expected {what}")
    try:
        number = float(value)
    except OverflowError:
        raise AnswerFormatError(TOO_LARGE) from None
    if not math.isfinite(number):
        raise AnswerFormatError(f"expected {what}")
    return number


def _flat(value) -> list:
    return [x for row in value for x in row] if value and isinstance(value[0], (list, tuple)) else list(value)


@dataclass(frozen=True)
class Kind:
    name: str
    example: str
    """An example answer, shown when the input cannot be parsed."""

    def parse(self, text: str, options: int = 0, expressions: bool = False):
        """The value of ``text``; arithmetic is read only where ``expressions`` (the question allows it)."""
        raise NotImplementedError

    def matches(self, given, key, tolerance: float, slack: float = 0.0) -> bool:
        return self.answer_form(given, tolerance) == self.answer_form(key, tolerance)

    def accepted_forms(self, key, tolerance: float, slack: float = 0.0) -> list[str]:
        """Every canonical form of a right answer (one, but for numbers with a ``slack``)."""
        return [self.answer_form(key, tolerance)]

    def answer_form(self, value, tolerance: float) -> str:
        """The whole answer as one string (its layout, then each element's form): the rule of right."""
        return ",".join(map(str, self.shape(value))) + ":" + "|".join(self.canonical(value, tolerance))

    def canonical(self, value, tolerance: float) -> list[str]:
        """One string per element."""
        raise NotImplementedError

    def shape(self, value) -> list[int]:
        """The layout of elements that is not secret (a matrix's shape, a vector's length)."""
        return [len(self.canonical(value, 1.0))]

    def layout_reason(self, given, layout: list[int]) -> str | None:
        """Why ``given`` cannot be right from its layout alone ("a 5 × 5 matrix is expected"), or None."""
        if self.name not in ("vector", "matrix") or self.shape(given) == list(layout):
            return None
        if self.name == "matrix":
            return f"{with_article(' × '.join(map(str, layout)))} matrix is expected"
        return f"{count(layout[0], 'number')} {'is' if layout[0] == 1 else 'are'} expected"

    def size_refusal(self, given, layout: list[int]) -> str | None:
        """"3 numbers are expected, not 2": why an answer of another size is refused, not marked."""
        reason = self.layout_reason(given, layout)
        return None if reason is None else f"{reason}, not {' × '.join(map(str, self.shape(given)))}"

    def close(self, given, key, tolerance: float, slack: float = 0.0) -> bool:
        """Whether ``given`` agrees with ``key`` on the grid ``COARSER`` times wider (numbers only)."""
        return False

    def format(self, value) -> str:
        return str(value)

    def to_text(self, value) -> str:
        """The value as an answer this kind parses back exactly (full precision)."""
        return self.format(value)


class IntegerKind(Kind):
    def parse(self, text, options=0, expressions=False):
        number = _number(reading.number(text, expressions), "a whole number")
        if number != round(number):
            raise AnswerFormatError(f"expected a whole number, got {number:g}")
        return int(round(number))

    def canonical(self, value, tolerance):
        return [str(int(value))]


class NumberKind(Kind):
    def parse(self, text, options=0, expressions=False):
        return _number(reading.number(text, expressions))

    def canonical(self, value, tolerance):
        return [grid_point(x, tolerance) for x in self.elements(value)]

    def elements(self, value) -> list:
        return _as_list(value)

    def matches(self, given, key, tolerance, slack=0.0):
        if self.shape(given) != self.shape(key):
            return False
        keys = self.elements(key)
        slacks = per_element(slack, len(keys))
        pairs = zip(self.elements(given), keys, slacks)
        return all(int(grid_point(g, tolerance)) in cells(k, tolerance, e) for g, k, e in pairs)

    def accepted_forms(self, key, tolerance, slack=0.0):
        import itertools

        keys = self.elements(key)
        choices = [cells(k, tolerance, e) for k, e in zip(keys, per_element(slack, len(keys)))]
        total = 1
        for choice in choices:
            total *= len(choice)
        if total > MAX_ACCEPTED_FORMS:
            widest = max(per_element(slack, len(keys)))
            most = MAX_ACCEPTED_FORMS
            raise ValueError(f"a slack of {widest:g} accepts {total} answers, more than a practice copy keeps ({most})")
        layout = ",".join(map(str, self.shape(key)))
        return [layout + ":" + "|".join(map(str, combination)) for combination in itertools.product(*choices)]

    def close(self, given, key, tolerance, slack=0.0):
        return self.matches(given, key, coarser(tolerance), slack)

    def format(self, value):
        return ", ".join(f"{x:.6g}" for x in _as_list(value))

    def to_text(self, value):
        return ", ".join(_plain_decimal(x) for x in _as_list(value))


class VectorKind(NumberKind):
    def parse(self, text, options=0, expressions=False):
        return [_number(x) for x in reading.number_list(text, expressions)]

    def format(self, value):
        return "[" + ", ".join(_shown(x, "{:.4g}") for x in value) + "]"


class MatrixKind(NumberKind):
    def parse(self, text, options=0, expressions=False):
        return [[_number(x) for x in row] for row in reading.number_rows(text, expressions)]

    def elements(self, value):
        return _flat(value)

    def shape(self, value):
        return [len(value), len(value[0])]

    def to_text(self, value):
        return "; ".join(" ".join(_plain_decimal(x) for x in row) for row in value)

    def format(self, value):
        width = max(len(_shown(x, "{:.4g}")) for x in _flat(value))
        return "\n".join("  ".join(_shown(x, "{:.4g}").rjust(width) for x in row) for row in value)


class ShapeKind(Kind):
    def parse(self, text, options=0, expressions=False):
        return reading.whole_numbers(text)

    def canonical(self, value, tolerance):
        return [",".join(str(int(x)) for x in value)]

    def shape(self, value):
        return [1]

    def format(self, value):
        return "(" + ", ".join(str(x) for x in value) + ")"


LETTERS = "abcdefghijklmnopqrstuvwxyz"


class SingleChoiceKind(Kind):
    def parse(self, text, options=0, expressions=False):
        letter = reading.clean(text).lower().strip("().[] ")
        if letter.isdigit() and 1 <= int(letter) <= options:
            letter = LETTERS[int(letter) - 1]
        if len(letter) != 1 or letter not in LETTERS[:options]:
            raise AnswerFormatError(f"expected one letter from a to {LETTERS[options - 1]}")
        return letter

    def canonical(self, value, tolerance):
        return [value]


class MultipleChoiceKind(Kind):
    def parse(self, text, options=0, expressions=False):
        cleaned = re.sub(r"[()\[\].]", " ", reading.clean(text).lower())
        letters = [x for x in re.split(r"[,;\s]+|(?<=[a-z])(?=[a-z])", cleaned) if x]
        if not letters or any(len(x) != 1 or x not in LETTERS[:options] for x in letters):
            raise AnswerFormatError(f"expected letters from a to {LETTERS[options - 1]}, separated by commas")
        return sorted(set(letters))

    def canonical(self, value, tolerance):
        return [",".join(sorted(value))]

    def format(self, value):
        return ", ".join(value)


class TrueFalseKind(Kind):
    def parse(self, text, options=0, expressions=False):
        word = reading.clean(text).lower().rstrip(".!")
        if word in ("t", "true", "yes", "y"):
            return True
        if word in ("f", "false", "no", "n"):
            return False
        raise AnswerFormatError("expected true or false")

    def canonical(self, value, tolerance):
        return ["true" if value else "false"]

    def format(self, value):
        return "true" if value else "false"


def grid_point(x: float, tolerance: float) -> str:
    """The grid point (a multiple of 2 × tolerance) nearest ``x``, halves away from zero, as text.

    Computed in decimal on the numbers as written (``repr``), so a key of 0.125 on a 0.01 grid
    rounds to 0.13 as a person rounds it, not to 0.12 as its binary float would.
    """
    cells = (Decimal(repr(float(x))) / Decimal(repr(2 * tolerance))).to_integral_value(ROUND_HALF_UP)
    return str(int(cells))


def per_element(slack, elements: int) -> list[float]:
    """The slack of each element: a sequence as it is, one number for every element."""
    return list(slack) if isinstance(slack, (list, tuple)) else [float(slack)] * elements


def cells(x: float, tolerance: float, slack: float = 0.0) -> range:
    """The grid points (as whole multiples of 2 × tolerance) that a value within ``slack`` of ``x`` rounds to."""
    if not slack:
        point = int(grid_point(x, tolerance))
        return range(point, point + 1)
    low, high = (Decimal(repr(float(x))) + d for d in (-Decimal(repr(float(slack))), Decimal(repr(float(slack)))))
    step = Decimal(repr(2 * tolerance))
    first, last = (int((end / step).to_integral_value(ROUND_HALF_UP)) for end in (low, high))
    return range(first, last + 1)


def _shown(x: float, pattern: str) -> str:
    """A number as shown to people, never ``-0``."""
    return pattern.format(float(x) + 0.0)  # -0.0 + 0.0 is 0.0


COARSER = 10
"""How much wider the grid of a close answer is than the question's: one decimal fewer."""
TELLS_CLOSE = {"exam": ("number", "vector", "matrix"), "practice": ("number",)}
"""Which question types a sitting says "close" for: practice, a single number only (``student_copy``)."""


def coarser(tolerance: float) -> float:
    """The tolerance of the grid ``COARSER`` times wider, computed in decimal (0.005 → 0.05)."""
    return float(Decimal(repr(tolerance)) * COARSER)


def close_note(tolerance: float) -> str:
    """What a close answer is told: the precision it has and the one the question asks for."""
    fine = Decimal(repr(2 * tolerance)).normalize()
    return f"close: right to the nearest {(fine * COARSER).normalize():f}, but not to the nearest {fine:f} this question asks for"


def effective_tolerance(kind_name: str, key, tolerance: float, relative: float | None) -> float:
    """The tolerance for this key: ``max(tolerance, relative * |key|)``, rounded down to 1, 2 or 5 × 10^k.

    The student copy stores it; rounding keeps it from giving the key's exact magnitude away.
    """
    if not relative or kind_name not in ("number", "vector", "matrix"):
        return tolerance
    values = _flat(key) if kind_name == "matrix" else _as_list(key)
    step = max(tolerance, relative * max(abs(float(x)) for x in values))
    exponent = math.floor(math.log10(step))
    mantissa = step / 10**exponent
    return max(m for m in (1, 2, 5) if m <= mantissa + 1e-12) * 10**exponent


def _plain_decimal(x: float) -> str:
    """A float without exponent notation: typed answers read "2e+1" as 2·e + 1, never as 20."""
    text = f"{float(x):.15f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _as_list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


KINDS: dict[str, Kind] = {
    "integer": IntegerKind("integer", "16"),
    "number": NumberKind("number", "0.43  or  4.3e-1  or  1/2"),
    "vector": VectorKind("vector", "0.43, 0.57  or  0.43 0.57"),
    "matrix": MatrixKind("matrix", "1 0; 0.43 0.57   or   [[1, 0], [0.43, 0.57]]"),
    "shape": ShapeKind("shape", "(2, 3, 4)  or  2x3x4"),
    "single": SingleChoiceKind("single", "b"),
    "multiple": MultipleChoiceKind("multiple", "a, c"),
    "truefalse": TrueFalseKind("truefalse", "true  or  false"),
}
