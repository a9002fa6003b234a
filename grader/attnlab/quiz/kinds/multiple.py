"""Every right option of the question's, by their letters: ``a, c``."""

from __future__ import annotations

import re

from attnlab.quiz import reading
from attnlab.quiz.kinds.base import LETTERS
from attnlab.quiz.kinds.lms_forms import EveryRightChoice
from attnlab.quiz.kinds.single import ChoiceKind
from attnlab.quiz.reading import AnswerFormatError


class MultipleChoiceKind(ChoiceKind):
    lms_form = EveryRightChoice

    def parse(self, text, options=0, expressions=False):
        cleaned = re.sub(r"[()\[\].]", " ", reading.clean(text).lower())
        letters = [x for x in re.split(r"[,;\s]+|(?<=[a-z])(?=[a-z])", cleaned) if x]
        if not letters or any(len(x) != 1 or x not in LETTERS[:options] for x in letters):
            raise AnswerFormatError(f"expected letters from a to {LETTERS[options - 1]}, separated by commas")
        return sorted(set(letters))

    def normalize_key(self, raw):
        letters = raw if isinstance(raw, (list, tuple)) else str(raw).replace(",", " ").split()
        return sorted({str(x).strip().lower() for x in letters})

    def canonical(self, value, tolerance):
        return [",".join(sorted(value))]

    def format(self, value):
        return ", ".join(value)

    def keys_outside_options(self, key, options):
        return [x for x in key if x not in LETTERS[:options]]

    def lms_question(self, keyed):
        return EveryRightChoice(tuple(keyed.key))


KIND = MultipleChoiceKind("multiple", "a, c")
