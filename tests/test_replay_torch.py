"""The class's fast path gives the live verdicts on the PyTorch track too: every torch fixture
(correct, hostile) graded alone and as a grading process of a class grades it; the buggy ones
against the class of every buggy fixture (tests/test_buggy_submissions.py)."""

import pytest
from conftest import COURSE, SUBMISSIONS, build_submission, fixtures_in, grade_in_class, read_fixture

from attnlab.grading.suite import grade
from attnlab.sandbox.host import Limits

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

pytest.importorskip("torch")

TORCH = COURSE.tracks.get("torch", [])
FIXTURES = [f for kind in ("correct", "hostile") for f in fixtures_in(kind) if f.file.removesuffix(".py") in TORCH]


def verdicts(report) -> dict:
    return {t.name: (t.outcome, t.score, t.misconception, t.feedback) for t in report.tests}


@pytest.fixture(scope="module")
def torch_session():
    from attnlab.reference import Reference
    from attnlab.classroom.session import ClassSession
    from attnlab.grading.replay.recording import record_script

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


@pytest.fixture(scope="module", params=["bwrap", "plain"])
def torch_session_in_mode(request, torch_session):
    """A grading process of a class in each sandbox mode, sharing the recorded run."""
    import os

    from attnlab.classroom.session import ClassSession
    from attnlab.sandbox.host import bwrap_path

    if request.param == "bwrap" and (os.geteuid() != 0 or bwrap_path() is None):
        pytest.skip("bubblewrap runs as root only")
    before = os.environ.get("ATTNLAB_SANDBOX")
    if request.param == "plain":
        os.environ["ATTNLAB_SANDBOX"] = "plain"
    try:
        session = ClassSession(COURSE, torch_session.reference, torch_session.script, torch_session.limits, TORCH)
        session.start()
    finally:
        if before is None:
            os.environ.pop("ATTNLAB_SANDBOX", None)
        else:
            os.environ["ATTNLAB_SANDBOX"] = before
    assert ("bubblewrap sandbox" in session.fork_server.mode) == (request.param == "bwrap")
    yield session
    session.close()


def test_what_a_module_says_of_itself_earns_no_point(tmp_path, torch_session_in_mode):
    """A module whose code rewrites the harness's report of it from inside the worker (its device
    on "meta", its dtype, its state dict) scores exactly what it scores without the rewrite, alone
    and in a class: points come from the values the grader received."""
    fixture = read_fixture(SUBMISSIONS / "hostile" / "torch_rewrites_what_the_harness_reports.py")
    forger = build_submission(tmp_path / "forger", fixture)
    honest = build_submission(tmp_path / "honest", fixture)
    source = honest / "torch_attention.py"
    source.write_text(source.read_text().replace("\n_forge()\n", "\n"))
    assert "\n_forge()\n" not in source.read_text()
    limits = Limits(call_seconds=5.0)
    session = torch_session_in_mode
    for path in ("alone", "in a class"):
        if path == "alone":
            reports = [
                grade(COURSE, s, only=TORCH, limits=limits, fork_server=session.fork_server) for s in (forger, honest)
            ]
        else:
            reports = [grade_in_class(session, s, TORCH, limits) for s in (forger, honest)]
        forged, plain = ({t.name: t for t in r.tests} for r in reports)
        meta = [name for name in forged if "meta device" in name]
        assert meta and all(forged[n].outcome.value == "passed" and plain[n].outcome.value != "passed" for n in meta), (
            "the forgery is in force"
        )
        assert {n: t.score for n, t in forged.items()} == {n: t.score for n, t in plain.items()}, path
        assert reports[0].score < reports[0].max_score, path
