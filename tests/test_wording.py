"""Counts and articles as people write them, in every message the engine prints."""

import numpy as np
import pytest

from attnlab.expect import Mismatch, expect_close, expect_pair
from attnlab.wording import article, count, plural, points, score


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


@pytest.mark.parametrize(
    "value, said",
    [
        (1 / 3, "0.33"),
        (2 / 3, "0.67"),
        (2.0, "2"),
        (2.5, "2.5"),
        (0.0, "0"),
        (0.004, "0.004"),
        (170.0, "170"),
        (-0.0, "0"),
    ],
)
def test_points_read_as_people_write_them(value, said):
    assert points(value) == said


def test_counts_and_scores_of_fractional_points():
    # Feedback and quiz marking showed "0/0.333333" and "(1 points)".
    assert score(0, 1 / 3) == "0/0.33" and score(2.5, 3) == "2.5/3"
    assert count(1 / 3, "point") == "0.33 points" and count(1.0000001, "point") == "1 point"


def test_feedback_says_tests_and_points_in_words():
    from attnlab.outcomes import Outcome
    from attnlab.report.html import render_html
    from attnlab.report.markdown import render_markdown
    from attnlab.results import GradeReport, TestResult

    def case(name, outcome, earned):
        return TestResult(name, "softmax", "softmax", outcome, earned, 1 / 3, "why", None, None, "", 0.1)

    report = GradeReport(
        "eve",
        (
            case("a", Outcome.PASSED, 1 / 3),
            case("b", Outcome.FAILED, 0.0),
            case("c", Outcome.PASSED, 1 / 3),
        ),
        "bubblewrap",
        1.0,
    )
    one = GradeReport("eve", (case("a", Outcome.PASSED, 1 / 3),), "bubblewrap", 1.0)
    markdown, html = render_markdown(report, "eve"), render_html(report)
    assert "2 of 3 tests passed, 0.67/1 points" in markdown and "*failed, 0/0.33*" in markdown
    assert "1 of 1 test passed" in render_markdown(one, "eve")
    for text in (markdown, html):
        assert "0.333333" not in text and "0.666667" not in text
