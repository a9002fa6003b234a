"""The device rule of the torch module (masks and tables made on x.device) is a check-only lesson:
the grader cannot check it from what a worker sends back (a run on the meta device returns no
value, only the worker's word), so its tests are worth 0, and full marks never hide them: every
report says beside the score which check-only tests failed (docs/security.md). ``attnlab check``
runs them on the student's machine, on a GPU too where there is one.
"""

from __future__ import annotations

import pytest
from conftest import COURSE, SUBMISSIONS, read_fixture

from attnlab.outcomes import Outcome
from attnlab.report.html import render_html
from attnlab.report.markdown import render_markdown
from attnlab.results import GradeReport, TestResult

META = "MultiHeadSelfAttention: runs on the meta device: the causal and padding masks are made on x.device (check-only, not scored: a run on meta returns no value the grader could check; attnlab check runs it on your machine)"


def result(name: str, passed: bool, points: float) -> TestResult:
    return TestResult(
        name,
        "MultiHeadSelfAttention",
        "torch_attention",
        Outcome.PASSED if passed else Outcome.FAILED,
        points if passed else 0.0,
        points,
        "" if passed else "forward failed on the meta device",
        None,
        None,
        "",
        0.0,
    )


def report(meta_passed: bool, values_passed: bool = True) -> GradeReport:
    tests = (result("MultiHeadSelfAttention: values", values_passed, 4.0), result(META, meta_passed, 0.0))
    return GradeReport("s1", tests, "plain", 1.0)


def test_full_marks_with_a_failing_check_only_test_say_so_everywhere():
    failing = report(meta_passed=False)
    assert failing.score == failing.max_score == 4.0
    line = failing.check_only_line()
    assert line.startswith(
        "Full marks on the scored tests, but 1 check-only test failed, not scored: MultiHeadSelfAttention: runs on the meta device"
    )
    assert line in failing.summary_lines() and line in failing.to_gradescope()["output"]
    assert "check-only test failed" in render_markdown(failing, "s1")
    assert "check-only test failed" in render_html(failing)


def test_no_word_when_the_check_only_tests_pass_and_no_full_marks_claimed_when_points_are_lost():
    assert report(meta_passed=True).check_only_line() is None
    assert "check-only" not in report(meta_passed=True).to_gradescope()["output"]
    partial = report(meta_passed=False, values_passed=False).check_only_line()
    assert partial.startswith("1 check-only test failed") and "Full marks" not in partial


def test_the_device_tests_of_the_course_are_the_check_only_ones():
    from attnlab.points import load_points

    check_only = {test for (stem, test), points in load_points(COURSE.hidden_tests_dir).items() if points == 0}
    assert check_only == {"test_device_agnostic", "test_device_agnostic_with_rope"}


@pytest.mark.slow
def test_a_module_with_masks_on_the_cpu_gets_its_points_and_is_told_beside_them(grade_fixture):
    """It fails on any GPU: the report of its full marks says that the device rule's tests failed."""
    graded = grade_fixture(read_fixture(SUBMISSIONS / "hostile" / "builds_its_masks_on_the_cpu.py"))
    meta = [t for t in graded.tests if "meta device" in t.name]
    assert len(meta) == 2 and all(t.outcome is not Outcome.PASSED and t.max_score == 0 for t in meta)
    assert graded.score == graded.max_score > 0, [t.name for t in graded.tests if t.score < t.max_score]
    assert graded.check_only_line().startswith("Full marks on the scored tests, but 2 check-only tests failed")
    assert graded.check_only_line() in graded.to_gradescope()["output"]
