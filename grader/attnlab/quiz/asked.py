"""A question as the student sees it: text, options, points, hint; nothing of the answer."""

from __future__ import annotations

from dataclasses import dataclass

from attnlab.quiz.kinds import LETTERS, kind_named


@dataclass(frozen=True)
class AskedQuestion:
    """One question as the student sees it; it knows nothing of the answer."""

    id: str
    type: str
    prompt: str
    options: tuple[str, ...]
    points: float
    hint: str
    concepts: tuple[str, ...]
    tolerance: float
    expressions: bool = False
    """Whether the answer may be arithmetic (``e/(2*e + 1)``); numbers and fractions always are."""

    @property
    def kind(self):
        return kind_named(self.type)

    def read(self, text: str):
        """The typed ``text`` as this question's kind of answer; ``AnswerFormatError`` says why not."""
        return self.kind.parse(text, len(self.options), self.expressions)

    def text(self) -> str:
        lines = [self.prompt.rstrip()]
        lines += [f"  {LETTERS[i]}) {option}" for i, option in enumerate(self.options)]
        return "\n".join(lines)
