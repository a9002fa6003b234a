"""One of the question's options, by its letter: ``b``."""

from __future__ import annotations

from attnlab.quiz import reading
from attnlab.quiz.kinds.base import LETTERS, Kind
from attnlab.quiz.kinds.lms_forms import OneChoice
from attnlab.quiz.reading import AnswerFormatError


class ChoiceKind(Kind):
    """What a question of options checks of them, whether one is right or several."""

    has_options = True

    def options_problem(self, options):
        if not options or len(options) < 2:
            return f"a {self.name} question needs at least two options"
        return None


class SingleChoiceKind(ChoiceKind):
    lms_form = OneChoice

    def parse(self, text, options=0, expressions=False):
        letter = reading.clean(text).lower().strip("().[] ")
        if letter.isdigit() and 1 <= int(letter) <= options:
            letter = LETTERS[int(letter) - 1]
        if len(letter) != 1 or letter not in LETTERS[:options]:
            raise AnswerFormatError(f"expected one letter from a to {LETTERS[options - 1]}")
        return letter

    def normalize_key(self, raw):
        return str(raw).strip().lower()

    def canonical(self, value, tolerance):
        return [value]

    def key_text(self, key):
        return f"{key})"

    def keys_outside_options(self, key, options):
        return [] if key in LETTERS[:options] else [key]

    def lms_question(self, keyed):
        return OneChoice(keyed.key)


KIND = SingleChoiceKind("single", "b")
