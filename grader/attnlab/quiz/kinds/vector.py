"""A list of numbers: ``0.43, 0.57`` or ``0.43 0.57``, each marked on the question's grid."""

from __future__ import annotations

from attnlab.quiz import reading
from attnlab.quiz.kinds.grid import number_text, per_element, read_number, shown
from attnlab.quiz.kinds.lms_forms import Blanks
from attnlab.quiz.kinds.number import NumberKind
from attnlab.wording import count


class VectorKind(NumberKind):
    lms_form = Blanks
    sized = True

    def parse(self, text, options=0, expressions=False):
        return [read_number(x) for x in reading.number_list(text, expressions)]

    def normalize_key(self, raw):
        return [float(x) for x in raw]

    def tells_close(self, sitting):
        return sitting == "exam"  # a practice copy checks close for a single number only

    def layout_reason(self, given, layout):
        if self.shape(given) == list(layout):
            return None
        return f"{count(layout[0], 'number')} {'is' if layout[0] == 1 else 'are'} expected"

    def format(self, value):
        return "[" + ", ".join(shown(x, "{:.4g}") for x in value) + "]"

    def answer_text(self, key, tolerance):
        return "[" + ", ".join(number_text(x, tolerance) for x in key) + "]"

    def lms_question(self, keyed):
        slacks = per_element(keyed.slack, len(keyed.key))
        return Blanks(
            (tuple((f"e{c + 1}", x, slack) for c, (x, slack) in enumerate(zip(keyed.key, slacks))),), keyed.tolerance
        )


KIND = VectorKind("vector", "0.43, 0.57  or  0.43 0.57")
