"""A number marked on the question's grid: ``0.43``, ``4.3e-1``, ``1/2``; and what vectors and
matrices, numbers too, share with it.

A wrong number is *close* when it agrees with the key (within its slack) on a grid ``COARSER``
times wider: right to one decimal fewer than the question asks. Practice says it of a single
number only, the one case a practice copy can check without making a brute force cheaper (see
``student_copy``); the instructor's marking says it of every numeric answer.
"""

from __future__ import annotations

import itertools
import math

from attnlab.quiz import reading
from attnlab.quiz.kinds.base import MAX_ACCEPTED_FORMS, Kind
from attnlab.quiz.kinds.grid import (
    as_list,
    cells,
    coarser,
    grid_point,
    number_text,
    per_element,
    plain_decimal,
    read_number,
)
from attnlab.quiz.kinds.lms_forms import Numerical


class NumberKind(Kind):
    lms_form = Numerical
    numeric = True

    def parse(self, text, options=0, expressions=False):
        return read_number(reading.number(text, expressions))

    def normalize_key(self, raw):
        return float(raw)

    def canonical(self, value, tolerance):
        return [grid_point(x, tolerance) for x in self.elements(value)]

    def elements(self, value) -> list:
        return as_list(value)

    def matches(self, given, key, tolerance, slack=0.0):
        if self.shape(given) != self.shape(key):
            return False
        keys = self.elements(key)
        slacks = per_element(slack, len(keys))
        pairs = zip(self.elements(given), keys, slacks)
        return all(int(grid_point(g, tolerance)) in cells(k, tolerance, e) for g, k, e in pairs)

    def accepted_forms(self, key, tolerance, slack=0.0):
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

    def tells_close(self, sitting):
        return True

    def effective_tolerance(self, key, tolerance, relative):
        """``max(tolerance, relative * |key|)``, rounded down to 1, 2 or 5 × 10^k: the student copy
        stores it, and rounding keeps it from giving the key's exact magnitude away."""
        if not relative:
            return tolerance
        step = max(tolerance, relative * max(abs(float(x)) for x in self.elements(key)))
        exponent = math.floor(math.log10(step))
        mantissa = step / 10**exponent
        return max(m for m in (1, 2, 5) if m <= mantissa + 1e-12) * 10**exponent

    def format(self, value):
        return ", ".join(f"{x:.6g}" for x in as_list(value))

    def to_text(self, value):
        return ", ".join(plain_decimal(x) for x in as_list(value))

    def answer_text(self, key, tolerance):
        return number_text(key, tolerance)

    def lms_question(self, keyed):
        return Numerical(keyed.key, keyed.tolerance, per_element(keyed.slack, 1)[0])


KIND = NumberKind("number", "0.43  or  4.3e-1  or  1/2")
