"""What the reference may be asked on a worker's behalf, and what is kept of its answers.

``StandinBounds``: what a stand-in call made during one graded call may ask of the reference,
relative to that call's own inputs. ``AnswerCache``: the reference's answers to stand-in calls,
shared by the workers of a grading process and bounded in bytes.
"""

from __future__ import annotations

import math

import numpy as np

from attnlab import wire
from attnlab.sandbox.inside.worker import BoundedAnswers

# The reference's answers to stand-in calls a grading process keeps for the class, in bytes, and
# the largest answer worth keeping.
ANSWER_CACHE_BYTES = 64 << 20

ANSWER_CACHE_ENTRY_BYTES = 1 << 20


class AnswerCache(BoundedAnswers):
    """The reference's answers to stand-in calls, as the messages sent, shared by the workers of a
    grading process and bounded in bytes: the reference is deterministic, so a class asking the
    same question gets the same answer; when the cache is full, new answers are computed each
    time. Keyed by the calling function too, since that decides what it may ask."""

    def __init__(self, max_bytes: int = ANSWER_CACHE_BYTES, max_entry_bytes: int = ANSWER_CACHE_ENTRY_BYTES):
        super().__init__(max_bytes, max_entry_bytes)


# A stand-in call's integer arguments may multiply to this many (an answer of this many entries,
# 32 MiB of float64) whatever the graded call's inputs, so that sizes chosen by the student cannot
# make the reference build a table far larger than any graded answer.
ANSWER_ELEMENTS = 1 << 22


class StandinBounds:
    """What a stand-in call made during one graded call may ask of the reference, relative to that
    call's own inputs: the trusted side computes it, so a student's ``causal_mask(40000)`` must not
    make the grader swell. Each array at most twice the largest input array (plus a little), no
    axis and no integer past twice the largest axis or integer of the inputs (plus a little), at
    most two more axes. Worked out from the inputs at the first stand-in call."""

    def __init__(self, args: tuple, kwargs: dict):
        self._inputs: tuple | None = (args, kwargs)
        self.max_elements = self.max_extent = self.max_ndim = 0

    @classmethod
    def for_import(cls) -> "StandinBounds":
        """The bounds of stand-in calls a file makes while it is imported (a module-level constant
        built with an earlier file's function): as if its input were a (4, 4, 16, 16) array and
        the number 64."""
        return cls((np.empty((4, 4, 16, 16)), 64), {})

    def _work_out(self) -> None:
        elements, extent, ndim = 0, 1, 0
        for leaf in wire.leaves(self._inputs):
            if isinstance(leaf, np.ndarray):
                elements, ndim = max(elements, leaf.size), max(ndim, leaf.ndim)
                extent = max(extent, *leaf.shape, 1)
            elif isinstance(leaf, (int, np.integer)) and not isinstance(leaf, bool):
                extent = max(extent, min(abs(int(leaf)), 1 << 40))
        self.max_elements, self.max_extent, self.max_ndim = 2 * elements + 1024, 2 * extent + 8, ndim + 2
        self._inputs = None

    def refusal(self, function: str, tree) -> str | None:
        """Why the reference ``function`` will not be run on the arguments the wire ``tree``
        describes (None: it will). Read off the tree, before anything is decoded; a tree that
        does not describe its arrays properly is left for the decoder to refuse."""
        if self._inputs is not None:
            self._work_out()
        stack = [tree]
        while stack:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, dict):
                described = item.get("__nd__")
                if described is None:
                    stack.extend(item.values())
                elif (
                    isinstance(described, list)
                    and len(described) == 3
                    and isinstance(described[2], list)
                    and all(type(n) is int for n in described[2])
                ):
                    shape = described[2]
                    if (
                        math.prod(shape) > self.max_elements
                        or len(shape) > self.max_ndim
                        or any(n > self.max_extent for n in shape)
                    ):
                        return f"{function}() was given an array of shape {tuple(shape)}, far larger than the inputs of the call being graded justify"
            elif type(item) is int and abs(item) > self.max_extent:
                return f"{function}() was given the number {item}, far larger than the inputs of the call being graded justify (at most {self.max_extent})"
        numbers = _product_of_integer_arguments(tree)
        if numbers > max(self.max_elements, ANSWER_ELEMENTS):
            return f"{function}() was given numbers that make an answer of up to {numbers} entries, far larger than the inputs of the call being graded justify"
        return None


def _product_of_integer_arguments(tree) -> int:
    """How many entries an answer may grow to from the integers passed as arguments themselves
    (``sinusoidal_encoding(T, d)`` answers T * d, ``causal_mask(n)`` n * n): their product, or the
    largest squared; read off the wire tree of ``(args, kwargs)``, not counting those in a list."""
    try:
        args, kwargs = tree["__tuple__"]
        values = [*args["__tuple__"], *(value for _, value in kwargs["__dict__"])]
    except (TypeError, KeyError, ValueError):
        return 1
    product, largest = 1, 1
    for value in values:
        if type(value) is int:
            product *= max(abs(value), 1)
            largest = max(largest, abs(value))
    return max(product, largest * largest)
