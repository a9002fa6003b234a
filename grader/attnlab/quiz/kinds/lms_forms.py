"""What a question is in an LMS's quiz engine, whatever the LMS: each kind says which of these
forms its questions take (``Kind.lms_question``), and each export writes the forms in its own
syntax (``export/quiz/``). A new kind takes one of these forms, or brings a new one that each
export must learn."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Numerical:
    """One number, right within ``tolerance`` of a grid point the key's ``slack`` reaches; a
    tolerance of 0 asks for the key exactly (a whole number)."""

    key: float
    tolerance: float
    slack: float


@dataclass(frozen=True)
class OneChoice:
    """Options to pick one of; ``right`` is the right one's letter."""

    right: str


@dataclass(frozen=True)
class EveryRightChoice:
    """Options to tick: right with every one of ``right`` (letters) ticked and no other."""

    right: tuple[str, ...]


@dataclass(frozen=True)
class TrueOrFalse:
    value: bool


@dataclass(frozen=True)
class ShortAnswer:
    """Text that an LMS compares as text: right in any of ``spellings``."""

    spellings: tuple[str, ...]


@dataclass(frozen=True)
class Blanks:
    """A table of numeric blanks, rows of (name, key, slack), each right as a ``Numerical`` of
    ``tolerance`` is."""

    rows: tuple[tuple[tuple[str, float, float], ...], ...]
    tolerance: float

    @property
    def entries(self) -> list[tuple[str, float, float]]:
        return [entry for row in self.rows for entry in row]
