"""An array's shape: ``(2, 3, 4)``, ``2x3x4`` or ``2 × 3 × 4``."""

from __future__ import annotations

from attnlab.quiz import reading
from attnlab.quiz.kinds.base import Kind
from attnlab.quiz.kinds.lms_forms import ShortAnswer


class ShapeKind(Kind):
    lms_form = ShortAnswer

    def parse(self, text, options=0, expressions=False):
        return reading.whole_numbers(text)

    def normalize_key(self, raw):
        return tuple(int(x) for x in raw)

    def canonical(self, value, tolerance):
        return [",".join(str(int(x)) for x in value)]

    def shape(self, value):
        return [1]

    def format(self, value):
        return "(" + ", ".join(str(x) for x in value) + ")"

    def lms_question(self, keyed):
        return ShortAnswer(tuple(shape_spellings(keyed.key)))


def shape_spellings(shape: tuple[int, ...]) -> list[str]:
    """The ways of writing ``shape`` that the terminal quiz reads as it (``ShapeKind.parse``), for an
    LMS's short answer, which can only compare text."""
    sizes = [str(int(x)) for x in shape]
    if len(sizes) == 1:
        one = sizes[0]
        return [f"({one},)", one, f"({one})", f"[{one}]", f"({one}, )"]
    joined = {
        ", ".join(sizes),
        ",".join(sizes),
        " x ".join(sizes),
        "x".join(sizes),
        " × ".join(sizes),
        "×".join(sizes),
        " ".join(sizes),
    }
    spellings = []
    for inner in sorted(joined, key=lambda s: (len(s), s)):
        spellings += [f"({inner})", inner, f"[{inner}]"]
    return list(dict.fromkeys(spellings))


KIND = ShapeKind("shape", "(2, 3, 4)  or  2x3x4")
