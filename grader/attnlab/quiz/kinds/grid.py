"""Numbers on the grid a question is marked on: each element rounded to the nearest multiple of
twice the tolerance (in decimal, halves away from zero), and what the kinds of numbers share."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from attnlab.quiz.arith import TOO_LARGE
from attnlab.quiz.reading import AnswerFormatError

COARSER = 10
"""How much wider the grid of a close answer is than the question's: one decimal fewer."""


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


def coarser(tolerance: float) -> float:
    """The tolerance of the grid ``COARSER`` times wider, computed in decimal (0.005 → 0.05)."""
    return float(Decimal(repr(tolerance)) * COARSER)


def close_note(tolerance: float) -> str:
    """What a close answer is told: the precision it has and the one the question asks for."""
    fine = Decimal(repr(2 * tolerance)).normalize()
    coarse = (fine * COARSER).normalize()
    return f"close: right to the nearest {coarse:f}, but not to the nearest {fine:f} this question asks for"


def centre(x: float, tolerance: float) -> Decimal:
    """The grid point attnlab rounds ``x`` to: the value an LMS keys with ``± tolerance``."""
    if tolerance <= 0:
        return Decimal(repr(float(x)))
    return (Decimal(grid_point(x, tolerance)) * Decimal(repr(2 * tolerance))).normalize()


def plain(value: Decimal) -> str:
    """A decimal without exponent notation or trailing zeros, never ``-0``."""
    text = f"{value.normalize():f}"
    return "0" if text in ("-0", "") else text


def number_text(x: float, tolerance: float) -> str:
    """``x`` rounded as the question asks (tolerance 0.005: to two decimals), as a plain decimal
    without trailing zeros (``0.43``, ``1``, ``0`` for ``1.1e-16``)."""
    return plain(centre(x, tolerance))


def read_number(value, what="a number") -> float:
    """A parsed number as a finite float; ``AnswerFormatError`` says what was expected."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AnswerFormatError(f"expected {what}")
    try:
        number = float(value)
    except OverflowError:
        raise AnswerFormatError(TOO_LARGE) from None
    if not math.isfinite(number):
        raise AnswerFormatError(f"expected {what}")
    return number


def flat(value) -> list:
    return [x for row in value for x in row] if value and isinstance(value[0], (list, tuple)) else list(value)


def as_list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def plain_decimal(x: float) -> str:
    """A float without exponent notation: typed answers read "2e+1" as 2·e + 1, never as 20."""
    text = f"{float(x):.15f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def shown(x: float, pattern: str) -> str:
    """A number as shown to people, never ``-0``."""
    return pattern.format(float(x) + 0.0)  # -0.0 + 0.0 is 0.0
