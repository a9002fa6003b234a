"""Counts and articles in the sentences people read: "1 entry", "3 entries", "an 8 × 8 matrix"."""

from __future__ import annotations

import re

# Plurals that adding "s" gets wrong, for the nouns the engine counts.
_IRREGULAR = {
    "entry": "entries",
    "index": "indices",
    "matrix": "matrices",
    "axis": "axes",
    "class": "classes",
    "copy": "copies",
    "quiz": "quizzes",
}
# Words whose first letter is a vowel but whose first sound is not, and the reverse.
_SAID_WITH_A = ("one", "uni", "use", "usu", "eu")
_SAID_WITH_AN = ("hour", "honest", "ndarray", "nd")


def plural(noun: str) -> str:
    """The plural of ``noun`` ("entry" -> "entries"); only its last word changes."""
    head, _, last = noun.rpartition(" ")
    many = _IRREGULAR.get(last) or (last + "es" if last.endswith(("s", "x", "sh", "ch")) else last + "s")
    return f"{head} {many}" if head else many


def count(number: float, noun: str, many: str | None = None) -> str:
    """``number`` and ``noun``, the noun plural unless the number is 1: "1 entry", "0 entries",
    "2.5 points", "0.33 points" for a third (``many`` gives a plural the rules do not)."""
    shown = str(number) if isinstance(number, int) else points(number)
    return f"{shown} {noun if shown == '1' else many or plural(noun)}"


def points(value: float) -> str:
    """A number of points as people write it: at most two decimals, without trailing zeros ("0.33"
    for a third of a point, not "0.333333"; "2", not "2.0"), and a non-zero amount never shown as 0."""
    value = float(value)
    if value and abs(value) < 0.005:
        return f"{value:.1g}"
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def score(earned: float, possible: float) -> str:
    """Points earned of points possible: "0/0.33", "2.5/3"."""
    return f"{points(earned)}/{points(possible)}"


def article(phrase: str) -> str:
    """ "a" or "an" for ``phrase`` as it is said aloud: "an 8 × 8", "a 4 × 4", "an int", "a float"."""
    digits = re.match(r"\d+", phrase)
    if digits:
        number = digits.group()
        # Eight, eighty, eight hundred; eleven and eighteen (thousand, million) say "an".
        said_with_an = number.startswith("8") or (len(number) % 3 == 2 and number[:2] in ("11", "18"))
        return "an" if said_with_an else "a"
    word = phrase.lower()
    if word.startswith(_SAID_WITH_AN):
        return "an"
    return "an" if word[:1] in "aeiou" and word[:1] and not word.startswith(_SAID_WITH_A) else "a"


def with_article(phrase: str) -> str:
    """``phrase`` after its article: "an 8 × 8 matrix"."""
    return f"{article(phrase)} {phrase}"
