"""A point is earned by values: a property test pays only together with the values it is about,
and the tolerance follows the inputs and the contract, never the answer's dtype.

The attacks (tests/submissions/hostile/): a whole course of constants of the inputs' shapes
(uniform weights, uniform over the visible keys, zeros, an input returned unchanged; a torch
module returning ``x * 0``), a whole course of ``np.zeros(1)``, and a float32 position table 0.01%
off. Each is graded alone (live) and as a grading process of a class grades it (the replay first):
the rule is applied where both paths' results meet (``grading.suite.grade``), and in nbgrader's
kernel (``export.notebook``).
"""

from __future__ import annotations


import numpy as np
import pytest
from conftest import COURSE, SUBMISSIONS, build_submission, fixtures_in, grade_in_class, read_fixture

from attnlab.course import CourseError
from attnlab.expect import Mismatch, expect_close, expect_rows_sum_to_one, tolerance
from attnlab.grading.suite import grade
from attnlab.outcomes import Outcome
from attnlab.points import PointsTable, load_table, pay_for_values
from attnlab.results import TestResult
from attnlab.sandbox.host import Limits

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

NUMPY, TORCH = COURSE.tracks["numpy"], COURSE.tracks.get("torch", [])
LIMITS = Limits(call_seconds=5.0)
AT_MOST = 0.01  # of the course, and of each track: what code that computes nothing may score


@pytest.fixture(scope="module")
def course_session():
    """A grading process of a class of the whole course (both tracks): its recording, its fork server."""
    from attnlab.reference import Reference
    from attnlab.classroom.session import ClassSession
    from attnlab.grading.replay.recording import record_script

    reference = Reference(COURSE)
    session = ClassSession(COURSE, reference, record_script(COURSE, reference), LIMITS)
    session.start()
    yield session
    session.close()


@pytest.fixture
def both_paths(tmp_path, course_session):
    """Grade the whole course of a submission built from fixtures: alone, and in a class."""

    def run(*fixtures):
        submission = build_submission(tmp_path / fixtures[0].path.parent.name, *fixtures)
        alone = grade(COURSE, submission, limits=LIMITS, fork_server=course_session.fork_server)
        return alone, grade_in_class(course_session, submission, None, LIMITS)

    return run


def verdicts(report) -> dict:
    return {t.name: (t.outcome, t.score, t.misconception, t.feedback) for t in report.tests}


def score_of(report, modules) -> tuple[float, float]:
    tests = [t for t in report.tests if t.module in modules]
    return sum(t.score for t in tests), sum(t.max_score for t in tests)


@pytest.mark.parametrize("kind", ["constants_of_the_shapes", "raises_everywhere"])
def test_code_that_computes_nothing_scores_at_most_1_percent_on_both_paths(both_paths, kind):
    """Constants of the inputs' shapes (zeros, uniform weights, an input returned unchanged), or a
    ValueError from every function at once: at most 1% of the course, and of each track."""
    alone, in_class = both_paths(*fixtures_in(f"hostile/{kind}"))
    assert verdicts(in_class) == verdicts(alone)
    for report in (alone, in_class):
        assert report.score <= AT_MOST * report.max_score, [t.name for t in report.tests if t.score]
        for track in (NUMPY, TORCH):
            got, most = score_of(report, track)
            assert got <= AT_MOST * most, (track, [t.name for t in report.tests if t.score and t.module in track])
        if kind == "raises_everywhere":
            continue
        # What held, held: its feedback says which values test pays it.
        rows = next(t for t in report.tests if t.name == "softmax: rows sum to 1 along the last axis by default")
        assert rows.outcome is Outcome.FAILED and rows.score == 0
        assert (
            rows.feedback.startswith("Not paid yet")
            and "Fix “softmax: values equal exp(x) / sum(exp(x)) along the axis” first" in rows.feedback
        )
        gradcheck = [t for t in report.tests if "gradcheck" in t.name]
        assert gradcheck and all("MultiHeadSelfAttention's values are right" in t.feedback for t in gradcheck)


def test_a_table_of_the_worked_examples_answers_earns_nothing(grade_both_paths):
    """The lessons' worked examples have fixed inputs: a table of their answers (the lesson's 4 × 4
    mask, ALiBi's slopes of 8 and 12 heads, "bank" twice, ...) passes them, and each is paid only
    beside the test of the same property on drawn inputs, which no table passes."""
    answered = {
        "causal_mask",
        "sliding_window_mask",
        "alibi_slopes",
        "sink_window_mask",
        "cosine_scores",
        "learned_positions",
    }
    reports = [
        report for fixture in fixtures_in("hostile/answers_the_worked_examples") for report in grade_both_paths(fixture)
    ]
    tests = [t for report in reports for t in report.tests if t.function in answered]
    assert {t.function for t in tests} == answered and sum(t.score for t in tests) == 0, [
        t.name for t in tests if t.score
    ]
    table = [t for t in tests if "of the lesson" in t.name or "12 heads add" in t.name]
    assert table and all(
        t.feedback.startswith("Not paid yet: this test passed, but its inputs are fixed") for t in table
    )


def test_tiny_arrays_score_nothing_and_fail_the_metamorphic_tests_on_their_own(both_paths):
    alone, in_class = both_paths(*fixtures_in("hostile/tiny_arrays"))
    assert verdicts(in_class) == verdicts(alone)
    assert alone.score == 0, [t.name for t in alone.tests if t.score]
    for name in (
        "self_attention: batch items do not affect each other",
        "cross_attention: outputs do not change with what sits in padded positions",
    ):
        [test] = [t for t in alone.tests if t.name.startswith(name)]
        assert "has the wrong shape" in test.feedback and "Not paid yet" not in test.feedback, test.feedback


@pytest.mark.parametrize(
    "name, functions",
    [
        ("sinusoidal_float32_a_ten_thousandth_off", {"sinusoidal_encoding"}),
        ("float32_alibi_a_ten_thousandth_off", {"alibi_slopes", "alibi_bias"}),
        ("float32_rope_frequencies_a_ten_thousandth_off", {"rope_frequencies"}),
    ],
)
def test_a_float32_table_is_held_to_the_contracts_float64_tolerance(grade_both_paths, name, functions):
    for report in grade_both_paths(read_fixture(SUBMISSIONS / "hostile" / f"{name}.py")):
        tests = [t for t in report.tests if t.function in functions]
        assert {t.function for t in tests} == functions and all(t.score == 0 for t in tests), [
            t.name for t in tests if t.score
        ]
        assert all(t.score == t.max_score for t in report.tests if t.function not in functions)


@pytest.mark.parametrize(
    "name, functions",
    [
        ("heads_float32_copy", {"hard_attention", "previous_token_score", "sink_score", "induction_score"}),
        ("flash_float32_copy", {"flash_attention", "flash_attention_backward"}),
    ],
)
def test_a_float32_copy_of_the_answer_earns_nothing(grade_both_paths, name, functions):
    """Float64's tolerance cannot see a float32 rounding of the right answer: these functions refuse a
    float32 answer to float64 inputs (or compare exactly), so it earns nothing, alone or in a class."""
    for report in grade_both_paths(read_fixture(SUBMISSIONS / "hostile" / f"{name}.py")):
        tests = [t for t in report.tests if t.function in functions]
        assert {t.function for t in tests} == functions
        assert all(t.score == 0 for t in tests), [t.name for t in tests if t.score]
        assert all(t.score == t.max_score for t in report.tests if t.function not in functions)


def test_one_bug_outside_the_values_keeps_the_property_points(grade_both_paths):
    """A softmax without the max subtraction has the right values on ordinary scores: only the
    stability tests cost it, and the properties paid with its values are paid."""
    alone, in_class = grade_both_paths(read_fixture(SUBMISSIONS / "buggy" / "softmax_no_max_subtraction.py"))
    assert verdicts(in_class) == verdicts(alone)
    lost = {t.name for t in alone.tests if t.score < t.max_score}
    assert lost and all("1e4" in name for name in lost), lost
    properties = (
        "softmax: the output has the input's shape",
        "softmax: rows sum to 1 along the last axis by default",
        "softmax: sums to 1 along the axis it is given",
    )
    assert all(t.score == t.max_score for t in alone.tests if t.name in properties)


def test_nbgrader_cells_pay_a_property_only_with_its_values():
    from attnlab.export.notebook import run_hidden_file

    def uniform(x, axis=-1):
        return np.full(np.shape(x), 1.0 / np.shape(x)[axis])

    results = run_hidden_file(COURSE, "test_softmax.py", {"softmax": uniform})
    shape = results["test_softmax.py::test_shape_is_kept"]
    assert shape.outcome is Outcome.FAILED and shape.feedback.startswith("Not paid yet")
    assert sum(r.score for r in results.values()) == 0


# ---------------------------------------------------------------- the rule, without a sandbox


def result(name: str, passed: bool, points: float = 1.0) -> TestResult:
    return TestResult(
        name,
        "softmax",
        "softmax",
        Outcome.PASSED if passed else Outcome.FAILED,
        points if passed else 0.0,
        points,
        "" if passed else "its own reason",
        None,
        None,
        "",
        0.0,
    )


TABLE = PointsTable(
    {
        ("test_f", "test_values"): 2.0,
        ("test_f", "test_shape"): 1.0,
        ("test_f", "test_cases"): 1.0,
        ("test_f", "test_rows"): 1.0,
    },
    {("test_f", "test_shape"): ("test_values",), ("test_f", "test_rows"): ("test_values", "test_cases")},
)


@pytest.mark.parametrize("values_pass", [True, False])
def test_a_property_is_paid_only_when_its_values_tests_pass(values_pass):
    graded = [
        ("test_f.py::test_shape", result("softmax: shape", True)),
        ("test_f.py::test_values", result("softmax: values", values_pass, 2.0)),
    ]
    shape, values = pay_for_values(TABLE, graded)
    assert values == graded[1][1]
    if values_pass:
        assert shape == graded[0][1]
    else:
        assert (shape.outcome, shape.score, shape.max_score) == (Outcome.FAILED, 0.0, 1.0)
        assert (
            shape.feedback
            == "Not paid yet: this property holds, but it is paid only together with the values it is about, once softmax's values are right. Fix “softmax: values” first."
        )


def test_every_case_of_every_values_test_must_pass_and_a_failure_keeps_its_own_reason():
    graded = [
        ("test_f.py::test_rows", result("softmax: rows", True)),
        ("test_f.py::test_shape", result("softmax: shape", False)),
        ("test_f.py::test_values", result("softmax: values", True, 2.0)),
        ("test_f.py::test_cases[1]", result("softmax: cases [1]", True, 0.5)),
        ("test_f.py::test_cases[2]", result("softmax: cases [2]", False, 0.5)),
    ]
    rows, shape, *_ = pay_for_values(TABLE, graded)
    assert rows.score == 0 and "Fix “softmax: cases [2]” first" in rows.feedback
    assert shape.feedback == "its own reason"


def test_a_values_test_that_did_not_run_is_the_courses_error():
    with pytest.raises(CourseError, match="test_f.test_shape is paid with test_values, which did not run"):
        pay_for_values(TABLE, [("test_f.py::test_shape", result("softmax: shape", True))])


@pytest.mark.parametrize(
    "entry, says",
    [
        (
            'test_a = { points = 1, paid_with = ["test_b"] }',
            "test_f.test_a is paid with test_b, which is not a test under [test_f]",
        ),
        (
            'test_a = { points = 1, paid_with = ["test_a"] }',
            "is paid with test_a, which is paid with other tests itself",
        ),
        (
            'test_a = { points = 1, paid_with = ["test_c"] }\ntest_c = { points = 1, paid_with = ["test_v"] }',
            "test_f.test_a is paid with test_c, which is paid with other tests itself",
        ),
        ('test_a = { points = 1, paid_with = [] }', "paid_with must be a list of the test names that pay it"),
        ('test_a = { points = 1, paid = ["test_v"] }', "test_f.test_a must be a number of points or"),
        ('test_a = { points = -1, paid_with = ["test_v"] }', "test_f.test_a must be a number of points, 0 or more"),
    ],
)
def test_a_malformed_paid_with_is_one_line_for_the_author(tmp_path, entry, says):
    (tmp_path / "points.toml").write_text(f"[test_f]\ntest_v = 2\n{entry}\n")
    with pytest.raises(CourseError, match=None) as error:
        load_table(tmp_path)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_the_courses_table_pays_every_property_with_values_of_its_own_file():
    table = load_table(COURSE.hidden_tests_dir)
    assert table.paid_with, "the course's property tests say what pays them"
    for (file_stem, test), payers in table.paid_with.items():
        assert all((file_stem, payer) in table.points and (file_stem, payer) not in table.paid_with for payer in payers)


# ---------------------------------------------------------------- item 2: the tolerance


TABLE_VALUES = np.sin(np.arange(1.0, 9.0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_answers_dtype_does_not_choose_its_tolerance(dtype):
    """A result 0.01% off fails whatever dtype it comes back in: the check has no float32 input."""
    off = (TABLE_VALUES * 1.0001).astype(dtype)
    with pytest.raises(Mismatch):
        expect_close(off, TABLE_VALUES, "the table")
    with pytest.raises(Mismatch):
        expect_close(off, TABLE_VALUES, "the table", np.float64)
    expect_close(off, TABLE_VALUES, "the table", np.float32)  # a float32 contract: float32's precision
    expect_close(off, TABLE_VALUES, "the table", TABLE_VALUES.astype(np.float32))


def test_rows_are_checked_at_the_inputs_precision_not_the_weights():
    weights = np.full((3, 4), 0.25 * (1 + 5e-5), dtype=np.float32)  # rows sum to 1.00005
    with pytest.raises(Mismatch):
        expect_rows_sum_to_one(weights, "weights", inputs=(np.zeros(2),))
    with pytest.raises(Mismatch):
        expect_rows_sum_to_one(weights, "weights")
    expect_rows_sum_to_one(weights, "weights", inputs=(np.zeros(2, dtype=np.float32),))


def test_tolerance_reads_inputs_and_dtypes_only():
    assert tolerance() == tolerance(np.zeros(2)) == tolerance(np.float64) == tolerance(np.arange(3))
    assert (
        tolerance(np.float32)
        == tolerance(np.dtype("float32"))
        == tolerance(np.zeros(2), np.ones(1, np.float32))
        > tolerance()
    )
