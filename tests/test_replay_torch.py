"""The class's fast path gives the live verdicts on the PyTorch track too: every torch fixture
(correct, buggy, hostile) graded alone and as a grading process of a class grades it."""

import pytest
from conftest import COURSE, build_submission, fixtures_in, grade_in_class

from attnlab.grading.suite import grade
from attnlab.sandbox.host import Limits

pytest.importorskip("torch")

TORCH = COURSE.tracks.get("torch", [])
FIXTURES = [f for kind in ("correct", "buggy", "hostile") for f in fixtures_in(kind) if f.file.removesuffix(".py") in TORCH]


def verdicts(report) -> dict:
    return {t.name: (t.outcome, t.score, t.misconception, t.feedback) for t in report.tests}


@pytest.fixture(scope="module")
def torch_session():
    from attnlab.reference import Reference
    from attnlab.replay import ClassSession
    from attnlab.replay.recording import record_script

    reference = Reference(COURSE)
    session = ClassSession(COURSE, reference, record_script(COURSE, reference, TORCH), Limits(call_seconds=5.0), TORCH)
    session.start()
    yield session
    session.close()


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f"{f.path.parent.name}/{f.path.stem}")
def test_every_torch_fixture_gets_the_same_verdicts_in_a_class_as_alone(tmp_path, torch_session, fixture):
    submission = build_submission(tmp_path / fixture.path.stem, fixture)
    limits = Limits(call_seconds=5.0)
    alone = grade(COURSE, submission, only=TORCH, limits=limits, fork_server=torch_session.fork_server)
    in_class = grade_in_class(torch_session, submission, TORCH, limits)
    assert verdicts(in_class) == verdicts(alone)
