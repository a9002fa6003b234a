"""Correct code written differently from the reference gets full marks: the tests accept every valid answer.

The correct fixtures that ``test_replay.test_every_fixture_gets_the_same_verdicts_in_a_class_as_alone``
grades (the numpy track's) are checked for full marks there, in the one live grading it makes of
each; the others are graded here.
"""

import pytest
from conftest import assert_full_marks, fixtures_in
from test_replay import BOTH_PATHS

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

CORRECT = fixtures_in("correct")
HERE = [f for f in CORRECT if f.path not in {graded.path for graded in BOTH_PATHS}]


def test_there_are_enough_correct_variants():
    assert len(CORRECT) >= 8


@pytest.mark.parametrize("fixture", HERE, ids=[f.path.stem for f in HERE])
def test_full_marks(grade_fixture, fixture):
    assert_full_marks(grade_fixture(fixture))
