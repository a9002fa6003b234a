"""Counts and articles as people write them, in every message the engine prints."""

import numpy as np
import pytest

from attnlab.expect import Mismatch, expect_close, expect_pair
from attnlab.wording import article, count, plural


@pytest.mark.parametrize(
    "number, noun, said",
    [
        (1, "entry", "1 entry"),
        (0, "entry", "0 entries"),
        (2, "function", "2 functions"),
        (1, "student", "1 student"),
        (3, "quiz", "3 quizzes"),
        (2, "answers file", "2 answers files"),
        (2.5, "point", "2.5 points"),
        (1.0, "point", "1 point"),
        (2, "axis", "2 axes"),
    ],
)
def test_count(number, noun, said):
    assert count(number, noun) == said


@pytest.mark.parametrize(
    "phrase, said",
    [
        ("8 × 8", "an"),
        ("4 × 4", "a"),
        ("11 × 11", "an"),
        ("18", "an"),
        ("80", "an"),
        ("1 × 8", "a"),
        ("110", "a"),
        ("int", "an"),
        ("float", "a"),
        ("ndarray", "an"),
        ("unit", "a"),
        ("one-hot", "a"),
        ("hour", "an"),
        ("", "a"),
    ],
)
def test_article(phrase, said):
    assert article(phrase) == said


def test_plural_changes_the_last_word_only():
    assert plural("hidden test") == "hidden tests" and plural("index") == "indices"


def test_expect_messages_count_and_index_as_people_write():
    # They said "1 entries", "index (0)" and "a int".
    with pytest.raises(Mismatch) as wrong:
        expect_close(np.array([0.0, 1.0, 1.0]), [1.0, 1.0, 1.0], "the output")
    assert "wrong values in 1 of 3 entries; the largest error is at index 0:" in str(wrong.value)
    with pytest.raises(Mismatch) as unpaired:
        expect_pair(3, "attention")
    assert "got an int" in str(unpaired.value)
