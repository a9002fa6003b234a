"""A whole number: ``16``; arithmetic where the question allows it."""

from __future__ import annotations

from attnlab.quiz import reading
from attnlab.quiz.kinds.base import Kind
from attnlab.quiz.kinds.grid import per_element, read_number
from attnlab.quiz.kinds.lms_forms import Numerical
from attnlab.quiz.reading import AnswerFormatError


class IntegerKind(Kind):
    lms_form = Numerical

    def parse(self, text, options=0, expressions=False):
        number = read_number(reading.number(text, expressions), "a whole number")
        if number != round(number):
            raise AnswerFormatError(f"expected a whole number, got {number:g}")
        return int(round(number))

    def normalize_key(self, raw):
        if isinstance(raw, bool) or float(raw) != round(float(raw)):
            raise ValueError(f"an integer question's answer must be whole, got {raw!r}")
        return int(round(float(raw)))

    def canonical(self, value, tolerance):
        return [str(int(value))]

    def lms_question(self, keyed):
        return Numerical(keyed.key, 0, per_element(keyed.slack, 1)[0])


KIND = IntegerKind("integer", "16")
