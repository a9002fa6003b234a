"""A table of numbers: rows separated by ``;`` (``1 0; 0.43 0.57``) or nested lists, each
number marked on the question's grid."""

from __future__ import annotations

from attnlab.quiz import reading
from attnlab.quiz.kinds.grid import flat, number_text, per_element, plain_decimal, read_number, shown
from attnlab.quiz.kinds.lms_forms import Blanks
from attnlab.quiz.kinds.number import NumberKind
from attnlab.wording import with_article


class MatrixKind(NumberKind):
    lms_form = Blanks
    sized = True
    in_rows = True
    how_to_type = "(A matrix: type one row a line, or every row on one line with ; between the rows.)"

    def parse(self, text, options=0, expressions=False):
        return [[read_number(x) for x in row] for row in reading.number_rows(text, expressions)]

    def normalize_key(self, raw):
        return [[float(x) for x in row] for row in raw]

    def elements(self, value):
        return flat(value)

    def shape(self, value):
        return [len(value), len(value[0])]

    def tells_close(self, sitting):
        return sitting == "exam"  # a practice copy checks close for a single number only

    def layout_reason(self, given, layout):
        if self.shape(given) == list(layout):
            return None
        return f"{with_article(' × '.join(map(str, layout)))} matrix is expected"

    def to_text(self, value):
        return "; ".join(" ".join(plain_decimal(x) for x in row) for row in value)

    def format(self, value):
        width = max(len(shown(x, "{:.4g}")) for x in flat(value))
        return "\n".join("  ".join(shown(x, "{:.4g}").rjust(width) for x in row) for row in value)

    def answer_text(self, key, tolerance):
        cells = [[number_text(x, tolerance) for x in row] for row in key]
        width = max(len(c) for row in cells for c in row)
        return "\n" + "\n".join("    [ " + "  ".join(c.rjust(width) for c in row) + " ]" for row in cells) + "\n"

    def lms_question(self, keyed):
        slacks = iter(per_element(keyed.slack, sum(len(row) for row in keyed.key)))
        rows = tuple(
            tuple((f"r{r + 1}c{c + 1}", x, next(slacks)) for c, x in enumerate(row)) for r, row in enumerate(keyed.key)
        )
        return Blanks(rows, keyed.tolerance)


KIND = MatrixKind("matrix", "1 0; 0.43 0.57  (one row a line, or ; between the rows)")
