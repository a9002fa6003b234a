"""Correct code written differently from the reference gets full marks: the tests accept every valid answer.

The numpy track's correct fixtures are graded at full marks by
``test_replay.test_every_fixture_gets_the_same_verdicts_in_a_class_as_alone``, alone and in a
class, in the one grading that test makes of each; the others are graded here.
"""

import pytest
from conftest import fixtures_in
from test_replay import FIXTURES, RACES, SLOW

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

CORRECT = fixtures_in("correct")
GRADED_THERE = {f.path for f in FIXTURES if f.path.stem not in SLOW | RACES}
HERE = [f for f in CORRECT if f.path not in GRADED_THERE]


def test_there_are_enough_correct_variants():
    assert len(CORRECT) >= 8


def test_every_correct_variant_is_graded_for_full_marks_here_or_on_both_paths():
    assert HERE and GRADED_THERE and {f.path for f in HERE} | GRADED_THERE >= {f.path for f in CORRECT}


@pytest.mark.parametrize("fixture", HERE, ids=[f.path.stem for f in HERE])
def test_full_marks(grade_fixture, fixture):
    report = grade_fixture(fixture)
    lost = [f"{t.name}: {t.outcome.value}: {t.feedback[:300]}" for t in report.tests if t.score < t.max_score]
    assert not lost, "\n".join(lost)
    assert report.score == report.max_score > 0
