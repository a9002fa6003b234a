"""What an answer kind is: one object that parses, normalises, checks, lints and exports its answers.

Each method is one decision about the kind; ``Kind`` gives the default most kinds take, and a
kind's own file overrides what differs. The rule of right and wrong is ``answer_form``: an answer
is right exactly when its form is one of the key's ``accepted_forms``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from attnlab.quiz.reading import AnswerFormatError

__all__ = ["AnswerFormatError", "Kind", "LETTERS", "MAX_ACCEPTED_FORMS"]
MAX_ACCEPTED_FORMS = 256
"""Accepted forms of one answer at most: a practice copy keeps a hash of each."""
LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Kind:
    name: str
    example: str
    """An example answer, shown when the input cannot be parsed."""

    numeric: ClassVar[bool] = False
    """Whether answers are numbers on a grid: a tolerance, ``slack``, ``rounded`` and ``relative`` apply."""
    has_options: ClassVar[bool] = False
    """Whether the question lists options (a to z) and the answer is letters."""
    sized: ClassVar[bool] = False
    """Whether an answer has a size a question states (a vector's length, a matrix's rows and
    columns), so that an answer of another size is refused at entry (``size_refusal``)."""
    in_rows: ClassVar[bool] = False
    """Whether an answer is rows of numbers that may be typed one row a line (a matrix)."""
    how_to_type: ClassVar[str | None] = None
    """A line shown under each question of the kind in the terminal, on how to type its answer."""
    lms_form: ClassVar[type | None] = None
    """The form of ``lms_forms`` that ``lms_question`` gives."""

    # ---------------------------------------------------------------- reading and the key

    def parse(self, text: str, options: int = 0, expressions: bool = False):
        """The value of ``text``; arithmetic is read only where ``expressions`` (the question allows it)."""
        raise NotImplementedError

    def normalize_key(self, raw):
        """The key (a literal, an expression's or a reference's value) in the form ``parse`` gives;
        ``ValueError`` when it cannot be one."""
        raise NotImplementedError

    # ---------------------------------------------------------------- the rule of right

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

    def elements(self, value) -> list:
        """The numbers of a numeric answer, in order."""
        raise TypeError(f"a {self.name} answer has no numbers")

    def effective_tolerance(self, key, tolerance: float, relative: float | None) -> float:
        """The tolerance the key is marked with (only numbers have a relative one)."""
        return tolerance

    def layout_reason(self, given, layout: list[int]) -> str | None:
        """Why ``given`` cannot be right from its layout alone ("a 5 × 5 matrix is expected"), or None."""
        return None

    def size_refusal(self, given, layout: list[int]) -> str | None:
        """ "3 numbers are expected, not 2": why an answer of another size is refused, not marked."""
        reason = self.layout_reason(given, layout)
        return None if reason is None else f"{reason}, not {' × '.join(map(str, self.shape(given)))}"

    def close(self, given, key, tolerance: float, slack: float = 0.0) -> bool:
        """Whether ``given`` agrees with ``key`` on the grid ``COARSER`` times wider (numbers only)."""
        return False

    def tells_close(self, sitting: str) -> bool:
        """Whether a wrong answer is told it is close in ``sitting`` (``exam`` or ``practice``)."""
        return False

    # ---------------------------------------------------------------- shown to people

    def format(self, value) -> str:
        return str(value)

    def to_text(self, value) -> str:
        """The value as an answer this kind parses back exactly (full precision)."""
        return self.format(value)

    def key_text(self, key) -> str:
        """The key as an explanation's ``{answer}`` shows it."""
        return self.format(key)

    def answer_text(self, key, tolerance: float) -> str:
        """The key as an LMS's explanation shows it: numbers at the question's precision."""
        return self.key_text(key)

    # ---------------------------------------------------------------- an author's mistakes

    def options_problem(self, options: list[str] | None) -> str | None:
        """What is wrong with a question's ``options`` for this kind, or None."""
        return None if options is None else f"a {self.name} question has no options"

    def keys_outside_options(self, key, options: int) -> list[str]:
        """The parts of ``key`` that name no option of ``options`` (lint)."""
        return []

    # ---------------------------------------------------------------- exports

    def lms_question(self, keyed):
        """What the keyed question is in an LMS: an ``lms_form``."""
        raise NotImplementedError
