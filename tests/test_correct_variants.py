"""Correct code written differently from the reference gets full marks: the tests accept every valid answer."""

import pytest
from conftest import fixtures_in

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

CORRECT = fixtures_in("correct")


def test_there_are_enough_correct_variants():
    assert len(CORRECT) >= 8


@pytest.mark.parametrize("fixture", CORRECT, ids=[f.path.stem for f in CORRECT])
def test_full_marks(grade_fixture, fixture):
    report = grade_fixture(fixture)
    lost = [f"{t.name}: {t.outcome.value}: {t.feedback[:300]}" for t in report.tests if t.score < t.max_score]
    assert not lost, "\n".join(lost)
    assert report.score == report.max_score > 0
