"""What a check says of one answer, whichever source (the YAML, a practice copy) checked it."""

from __future__ import annotations

from typing import NamedTuple

NOT_CHECKED_IN_PRACTICE = (
    "Recorded, not checked: this question is asked as it stands in the exam, so practice does not give its answer away."
)


class Verdict(NamedTuple):
    """What a check says of one answer."""

    right: bool | None
    """None when this source has nothing to check against (an exam copy)."""
    text: str | None
    """The explanation when right; when wrong, the matched mistake's explanation or why it cannot be right."""
    mistake: str | None = None
    """The name of the common mistake a wrong answer matches."""
    close: bool = False
    """A wrong answer right to one decimal fewer than asked (``kinds.close_note`` is then the text)."""
