"""Public tests for softmax.py: run them with `attnlab check` or `pytest`."""

import numpy as np
from softmax import softmax

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_finite, expect_rows_sum_to_one, expect_shape, expect_unchanged


def test_small_example():
    """softmax: [0, ln 3] gives [1/4, 3/4]"""
    expect_close(softmax(np.array([0.0, np.log(3.0)])), [0.25, 0.75], "softmax([0, ln 3])")


def test_the_cat_sat():
    """softmax: "sat" against (The, cat, sat) with scores (0.5, 2.1, 1.3) is about (0.12, 0.61, 0.27)"""
    expect_close(softmax(np.array([0.5, 2.1, 1.3])), [0.12, 0.61, 0.27], "softmax([0.5, 2.1, 1.3])", atol=0.005)


def test_rows_sum_to_one():
    """softmax: each row of a (2, 3) array sums to 1 by default"""
    out = softmax(np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
    expect_shape(out, (2, 3), "softmax(x)", "the shape of x")
    expect_rows_sum_to_one(out, "softmax(x)")


def test_axis_argument():
    """softmax: axis=0 makes the columns sum to 1"""
    out = softmax(np.array([[1.0, 2.0], [3.0, 5.0], [0.0, 1.0]]), axis=0)
    np.testing.assert_allclose(out.sum(axis=0), [1.0, 1.0], err_msg="with axis=0 the columns should sum to 1")


def test_large_scores():
    """softmax: scores of 1e4 give no nan or inf"""
    out = softmax(np.array([1e4, 0.0, -1e4]))
    expect_finite(out, "softmax([1e4, 0, -1e4]) (subtract the maximum before np.exp)")
    expect_close(out, [1.0, 0.0, 0.0], "softmax([1e4, 0, -1e4])")


def test_rows_far_apart():
    """softmax: each row is shifted by its own maximum: a row near -1e4 beside one near +1e4 is still a distribution"""
    out = softmax(np.array([[1e4, 1e4 - 1.0], [-1e4, -1e4 - 1.0]]))
    row = [1 / (1 + np.exp(-1.0)), np.exp(-1.0) / (1 + np.exp(-1.0))]
    expect_close(out, [row, row], "softmax([[1e4, 1e4 - 1], [-1e4, -1e4 - 1]]) (both rows are softmax([0, -1]))")


def test_shift_invariance_along_an_axis():
    """softmax: adding a constant to each slice along the axis changes nothing (axis=1 of a 2 x 3 x 2 array)"""
    x = np.arange(12.0).reshape(2, 3, 2) % 5
    shifted = x + np.array([[[100.0, -50.0]], [[3.0, 7.0]]])  # one constant per slice along axis 1
    expect_close(softmax(shifted, axis=1), softmax(x, axis=1), "softmax(x + c, axis=1), c constant along axis 1")
    np.testing.assert_allclose(softmax(x, axis=1).sum(axis=1), np.ones((2, 2)), err_msg="along axis=1 each slice should sum to 1")


def test_float32_batch_and_heads():
    """softmax: a (2, 2, 3, 4) float32 array of scores near ±1e4: each row of the last axis is exp(x − max) / Σ exp(x − max), at float32's precision"""
    x = (np.random.default_rng(3).standard_normal((2, 2, 3, 4)) * 10.0 + np.array([1e4, -1e4, 0.0])[:, None]).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    out = softmax(x)
    expect_finite(out, "softmax of float32 scores near ±1e4")
    expect_close(out, e / e.sum(axis=-1, keepdims=True), "softmax of a (2, 2, 3, 4) float32 array", x)


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "softmax")


def test_the_scores_are_left_as_they_were():
    """softmax: the array it is given is unchanged after the call (a new array is returned)"""
    x = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -1.0]])
    given = x.copy()
    softmax(x)
    expect_unchanged("softmax", ("x",), (given,), (x,))
