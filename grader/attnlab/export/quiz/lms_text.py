"""How a question reads and is answered in an LMS (Moodle XML, QTI): shared by both exports.

- Numbers are shown and keyed at the precision the question asks for: the grid point
  ``kinds.grid.grid_point`` rounds to, so an explanation says ``0`` where the key is
  ``1.1e-16`` and ``0.43`` where it is ``0.4268``, and an LMS that accepts ``key ± tolerance`` is centred where attnlab's own rule is.
- Text becomes HTML with each matrix (the bracketed rows ``params.format_value`` writes) kept in
  a ``<pre>`` block, since HTML collapses the spaces that align its columns.
- A shape is accepted in every spelling the terminal quiz reads (``kinds.shape.shape_spellings``),
  for LMS short answers that can only compare text.
"""

from __future__ import annotations

import html
import re
from decimal import Decimal

from attnlab.quiz import params as drawing
from attnlab.quiz.kinds.grid import cells, centre, number_text, plain
from attnlab.quiz.kinds.shape import shape_spellings
from attnlab.quiz.schema import Question, Quiz
from attnlab.quiz.variant import POOL_ITEM, KeyedQuestion, drawn_values, item_of

__all__ = [
    "accepted_interval",
    "answer_text",
    "centre",
    "explanation",
    "export_variants",
    "key_number",
    "number_text",
    "shape_spellings",
    "to_html",
]


def _step(tolerance: float) -> Decimal:
    return Decimal(repr(2 * tolerance))


def key_number(x: float, tolerance: float) -> str:
    """The key an LMS compares with ``± tolerance``: the grid point, without exponent notation."""
    return plain(centre(x, tolerance))


def answer_text(keyed: KeyedQuestion) -> str:
    """The key as the explanation shows it: numbers at the question's precision, a matrix in rows."""
    return keyed.asked.kind.answer_text(keyed.key, keyed.tolerance)


def explanation(question: Question, values: dict, keyed: KeyedQuestion) -> str:
    """The explanation of the variant drawn as ``values``, with ``{answer}`` as ``answer_text``."""
    return drawing.render(item_of(question, values).explanation, {**values, "answer": answer_text(keyed)})


def export_variants(quiz: Quiz, question: Question, variants: int, fixed: str) -> list[tuple[str, dict]]:
    """(name, values) of each variant an export holds: every exam item of a pool, or the variants of
    the pseudo-students ``variant-1`` … ``variant-N`` (what ``quiz key`` prints for them), or, with
    one variant, the pseudo-student ``fixed``'s."""
    if variants > 1 and question.pool is not None:
        return [(f"exam item {i + 1}", {POOL_ITEM: ("exam", i)}) for i in range(len(question.pool.exam))]
    if variants > 1 and question.params:
        return [(f"variant-{n}", drawn_values(quiz, question, f"variant-{n}")) for n in range(1, variants + 1)]
    return [(fixed, drawn_values(quiz, question, fixed))]


def accepted_interval(x: float, tolerance: float, slack: float) -> tuple[Decimal, Decimal]:
    """(centre, half width) of the interval of answers attnlab marks right for key ``x``: every grid
    point the slack reaches, each ± tolerance; an LMS keys it as centre ± half width."""
    if tolerance <= 0:
        return Decimal(repr(float(x))), Decimal(0)
    reached = cells(x, tolerance, slack)
    low, high = reached[0] * _step(tolerance), reached[-1] * _step(tolerance)
    return ((low + high) / 2).normalize(), ((high - low) / 2 + Decimal(repr(tolerance))).normalize()


_MATRIX_ROW = re.compile(r"^ {4}\[ .* \]$")


def to_html(text: str) -> str:
    """Plain text as HTML: paragraphs with line breaks, and each matrix's rows in a ``<pre>`` block
    between them (a ``<pre>`` cannot sit inside a ``<p>``)."""
    blocks = []
    for paragraph in text.strip().split("\n\n"):
        lines: list[str] = []
        rows: list[str] = []
        for line in paragraph.split("\n") + [""]:
            if _MATRIX_ROW.match(line):
                if lines and any(x.strip() for x in lines):
                    blocks.append("<p>" + "<br>".join(html.escape(x, quote=False) for x in lines if x.strip()) + "</p>")
                lines = []
                rows.append(html.escape(line.strip(), quote=False))
                continue
            if rows:
                blocks.append("<pre>" + "\n".join(rows) + "</pre>")
                rows = []
            lines.append(line)
        if any(x.strip() for x in lines):
            blocks.append("<p>" + "<br>".join(html.escape(x, quote=False) for x in lines if x.strip()) + "</p>")
    return "".join(blocks)
