"""How many bytes of a submission's answers the grader takes in and keeps: relative to the reference's.

An answer crosses the wire whole, and the grader holds it to compare it and, for a failing
test, to name the misconception. An answer far larger than the reference's answer to the same
call (``AnswerRoom``) is refused, with the reason, from the size its message announces, before
its data is read; and what the grader keeps of one test's answers, and of one submission's, is
bounded (``KeptBudget``), so that no submission can make the grader swell.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from attnlab import wire

ROOM_FLOOR_BYTES = 1 << 20
"""An answer this small is always taken in (the hidden suites' largest is 256 KiB)."""
ROOM_FACTOR = 4
"""How many times the reference's answer an answer may be (float64 for float16 is four)."""
KEPT_PER_TEST_BYTES = 16 << 20
"""What the grader keeps of one test's calls (their inputs and answers): honest ones keep under 1 MiB."""
KEPT_PER_SUBMISSION_BYTES = 64 << 20
"""What the grader keeps of one submission's calls, every test together."""


class AnswerTooLarge(Exception):
    """An answer, or a test's answers together, past what the grader takes in: the message says why."""


def plain_bytes(value) -> int:
    """About what a plain value takes in the grader: its arrays' bytes, and 32 for any other value."""
    return sum(leaf.nbytes if isinstance(leaf, np.ndarray) else 32 for leaf in wire.leaves(value))


def wire_bytes(value) -> int:
    """What ``value`` takes as a message's contents: its header's JSON and its arrays' bytes."""
    buffers: list = []
    tree = wire.encode(value, buffers)
    return len(wire.dumps(tree)) + sum(array.nbytes for array in buffers)


def size_in_words(nbytes: int) -> str:
    """``nbytes`` as a student reads it: 3 KiB, 48 MiB."""
    if nbytes >= 1 << 20:
        return f"{nbytes / (1 << 20):.0f} MiB"
    return f"{max(nbytes, 1) / (1 << 10):.0f} KiB" if nbytes >= 1 << 10 else f"{nbytes} bytes"


class AnswerRoom:
    """The room an answer to one call may take on the wire: ``ROOM_FACTOR`` times the reference's
    answer (with the inputs, when those are asked back), and never less than ``ROOM_FLOOR_BYTES``.

    ``expected``: the size in bytes of the reference's answer as it would cross (``wire_bytes``),
    or a function that works it out, called only for an answer past the floor (most are far
    below it, and the reference's answer then need not be computed)."""

    def __init__(self, function: str, expected: int | Callable[[], int]):
        self.function = function
        self._expected = expected

    def refusal(self, nbytes: int) -> str | None:
        """Why an answer of ``nbytes`` bytes is not taken in (None: it is)."""
        if nbytes <= ROOM_FLOOR_BYTES:
            return None
        if callable(self._expected):
            self._expected = self._expected()
        if nbytes <= max(ROOM_FLOOR_BYTES, ROOM_FACTOR * self._expected):
            return None
        return (
            f"{self.function} returned {size_in_words(nbytes)} where the expected answer to this call "
            f"takes {size_in_words(self._expected)}: an answer more than {ROOM_FACTOR} times the size of "
            f"the expected one (and over {ROOM_FLOOR_BYTES >> 20} MiB) is refused before it is read"
        )


class KeptBudget:
    """Bytes the grader may still keep of a test's, or a submission's, answers."""

    def __init__(self, limit: int):
        self.limit, self.used = limit, 0

    def take(self, nbytes: int) -> bool:
        """Count ``nbytes`` as kept if they fit (True), else keep the count as it was (False)."""
        if self.used + nbytes > self.limit:
            return False
        self.used += nbytes
        return True
