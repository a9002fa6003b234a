"""True or false: ``true``, ``t``, ``yes``; ``false``, ``f``, ``no``."""

from __future__ import annotations

from attnlab.quiz import reading
from attnlab.quiz.kinds.base import Kind
from attnlab.quiz.kinds.lms_forms import TrueOrFalse
from attnlab.quiz.reading import AnswerFormatError


class TrueFalseKind(Kind):
    lms_form = TrueOrFalse

    def parse(self, text, options=0, expressions=False):
        word = reading.clean(text).lower().rstrip(".!")
        if word in ("t", "true", "yes", "y"):
            return True
        if word in ("f", "false", "no", "n"):
            return False
        raise AnswerFormatError("expected true or false")

    def normalize_key(self, raw):
        if not isinstance(raw, bool):
            raise ValueError(f"a truefalse question's answer must be true or false, got {raw!r}")
        return raw

    def canonical(self, value, tolerance):
        return ["true" if value else "false"]

    def format(self, value):
        return "true" if value else "false"

    def lms_question(self, keyed):
        return TrueOrFalse(bool(keyed.key))


KIND = TrueFalseKind("truefalse", "true  or  false")
