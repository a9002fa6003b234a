"""The generic diagnostic: what a wrong array has in common with the expected one, with no catalogue.

It must say true things only: a correct answer computed another way, a symmetric matrix, or a
wrong answer with no simple relation to the expected one gets no sentence.
"""

import shutil
import subprocess
import sys

import numpy as np
import pytest
from conftest import COURSE, SUBMISSIONS, build_submission, read_fixture

from attnlab.differences import describe_difference
from attnlab.expect import Mismatch, expect_close, expect_equal_bool

CAUSAL_4 = np.tril(np.ones((4, 4), dtype=bool))
RNG = np.random.default_rng(0)


def test_a_mask_that_is_the_exact_complement():
    assert "exact complement" in describe_difference(~CAUSAL_4, CAUSAL_4)
    with pytest.raises(Mismatch, match="exact complement of the expected one"):
        expect_equal_bool(~CAUSAL_4, CAUSAL_4, "causal_mask(4)")


def test_a_mask_off_by_one_row_and_a_padding_mask_off_by_one_column():
    assert "Off by one row" in describe_difference(np.tril(np.ones((4, 4), dtype=bool), k=-1), CAUSAL_4)
    expected = np.arange(5)[None, :] < np.array([2, 3, 1])[:, None]
    got = np.arange(5)[None, :] <= np.array([2, 3, 1])[:, None]
    assert "Off by one column" in describe_difference(got, expected)


def test_a_result_that_is_the_transpose_in_shape_and_values():
    expected = RNG.normal(size=(2, 3, 5))
    with pytest.raises(Mismatch, match="transpose of the expected one") as raised:
        expect_close(np.swapaxes(expected, -1, -2), expected, "the scores")
    assert "wrong shape: expected (2, 3, 5), got (2, 5, 3)" in str(raised.value)
    square = RNG.normal(size=(4, 4))
    assert "transpose" in describe_difference(square.T, square)


def test_weights_that_sum_to_1_along_the_queries():
    scores = RNG.normal(size=(2, 4, 3))
    expected = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    got = np.exp(scores) / np.exp(scores).sum(axis=-2, keepdims=True)
    assert describe_difference(got, expected) == "Your rows sum to 1 along axis 1 (or -2), not along the last axis."


def test_rows_shifted_by_one_and_a_wrong_scale():
    table = RNG.normal(size=(6, 4))
    assert "row i is the expected row i + 1" in describe_difference(table[1:], table[:-1])
    assert (
        describe_difference(table * 2.0, table) == "Every value is 2 times the expected one: a scale or a sign is off."
    )


@pytest.mark.parametrize(
    "got, expected",
    [
        (np.eye(3) + 1e-12, np.eye(3)),  # correct within rounding: nothing to say
        (np.ones((3, 3)), np.ones((3, 3))),  # symmetric and equal: not "the transpose"
        (RNG.normal(size=(4, 4)), RNG.normal(size=(4, 4))),  # wrong with no simple relation
        (np.ones((3, 4), dtype=bool), np.ones((3, 4), dtype=bool)),  # constant rows: a shift is no evidence
        (np.array([[1.0, np.nan], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 1.0]])),  # nan: nothing structural
        (np.ones((2, 4, 4), dtype=bool), CAUSAL_4),  # another shape altogether
    ],
)
def test_no_sentence_without_a_true_relation(got, expected):
    assert describe_difference(got, expected) is None


@pytest.mark.slow
def test_a_students_copy_without_the_catalogue_says_it_in_attnlab_check(tmp_path):
    """In a course folder with no solutions/ (a student's copy), `attnlab check` still says what
    differs, and names the mistake from the probe book the public tests carry (not the catalogue)."""
    course = tmp_path / "course"
    shutil.copytree(COURSE.exercises_dir, course / "exercises")
    submission = build_submission(
        tmp_path / "work", read_fixture(SUBMISSIONS / "buggy" / "causal_mask_marks_the_future.py")
    )
    result = subprocess.run(
        [sys.executable, "-m", "attnlab.cli", "check", str(submission), "--course", str(course), "--only", "masks"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    text = " ".join(result.stdout.split())
    assert not (course / "solutions").exists() and (course / "exercises" / "tests" / "probes.json").is_file()
    assert result.returncode == 1 and "known mistake: True marks the masked cells" in text, (
        result.stdout + result.stderr
    )
    assert "exact complement of the expected one" in text, text
