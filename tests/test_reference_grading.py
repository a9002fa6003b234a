"""The reference gets full marks, the stubs get zero, and every hidden test has its points."""

import ast

import pytest
from conftest import COURSE

from attnlab.grading.suite import grade
from attnlab.outcomes import Outcome
from attnlab.points import load_points
from attnlab.intake.roster import SubmissionError

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)


def test_reference_gets_full_marks(fork_server):
    report = grade(COURSE, COURSE.solutions_dir, fork_server=fork_server)
    lost = [f"{t.name}: {t.feedback[:200]}" for t in report.tests if t.outcome is not Outcome.PASSED]
    assert not lost, lost
    assert report.score == report.max_score >= 100
    assert {t.function for t in report.tests} == {f.name for f in COURSE.functions}, "every function has hidden tests"


def test_in_process_baseline_agrees_on_the_reference():
    report = grade(COURSE, COURSE.solutions_dir, in_process=True, only=["softmax", "masks"])
    assert report.score == report.max_score


def test_stubs_get_zero_and_say_not_implemented(fork_server):
    report = grade(COURSE, COURSE.exercises_dir, fork_server=fork_server)
    assert report.score == 0
    assert all(t.outcome is Outcome.NOT_IMPLEMENTED for t in report.tests)
    assert all(t.feedback.startswith(f"{t.function} is not implemented yet") for t in report.tests)


def test_test_names_say_function_and_property(fork_server):
    report = grade(COURSE, COURSE.solutions_dir, only=["softmax"], fork_server=fork_server)
    assert "softmax: rows sum to 1 along the last axis by default" in [t.name for t in report.tests]
    gradescope = report.to_gradescope()
    assert gradescope["score"] == report.score
    for test in gradescope["tests"]:
        assert {"name", "score", "max_score", "output", "status"} <= test.keys()
        assert test["name"].startswith("softmax: ")


def test_every_points_entry_names_a_hidden_test():
    points = load_points(COURSE.hidden_tests_dir)
    defined = set()
    for path in COURSE.hidden_tests_dir.glob("test_*.py"):
        defined |= {
            (path.stem, n.name)
            for n in ast.parse(path.read_text()).body
            if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")
        }
    assert set(points) == defined, (
        f"points without tests: {set(points) - defined}; tests without points: {defined - set(points)}"
    )


def test_a_syntax_error_costs_its_file_only(tmp_path, fork_server):
    for module in COURSE.modules:
        (tmp_path / f"{module}.py").write_text((COURSE.solutions_dir / f"{module}.py").read_text())
    (tmp_path / "masks.py").write_text("def causal_mask(n:\n    return 1\n")
    report = grade(COURSE, tmp_path, fork_server=fork_server)
    failing = {t.module for t in report.tests if t.outcome is not Outcome.PASSED}
    assert failing == {"masks"}
    assert "SyntaxError" in next(t.feedback for t in report.tests if t.module == "masks")


def test_a_missing_file_costs_its_functions_only(tmp_path, fork_server):
    for module in ("softmax", "scores"):
        (tmp_path / f"{module}.py").write_text((COURSE.solutions_dir / f"{module}.py").read_text())
    report = grade(COURSE, tmp_path, only=["softmax", "scores", "efficient"], fork_server=fork_server)
    assert all(t.outcome is Outcome.PASSED for t in report.tests if t.module != "efficient")
    assert all("has no efficient.py" in t.feedback for t in report.tests if t.module == "efficient")


@pytest.mark.parametrize(
    "make", [lambda p: p / "absent", lambda p: (p / "file.txt").write_text("x") and p / "file.txt", lambda p: p]
)
def test_what_is_not_a_submission_is_refused(tmp_path, make):
    with pytest.raises(SubmissionError):
        grade(COURSE, make(tmp_path))
