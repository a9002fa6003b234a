"""Hidden tests for softmax.py."""

import numpy as np
from attention_inputs import DTYPE, LEAD, SEED, SIZE, normal
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_array, expect_close, expect_finite, expect_rows_sum_to_one, expect_shape, expect_unchanged


@st.composite
def scores_and_axis(draw):
    shape = draw(LEAD) + (draw(SIZE), draw(SIZE))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    return normal(draw(SEED), shape, draw(DTYPE), scale=3.0), axis


@given(scores_and_axis())
def test_shape_is_kept(student, reference, case):
    """softmax: the output has the input's shape"""
    x, axis = case
    got = expect_array(student.softmax(x, axis=axis), "softmax(x)")
    expect_shape(got, x.shape, "softmax(x)", "the shape of x")


@given(LEAD, SIZE, SIZE, SEED)
def test_rows_sum_to_one(student, reference, lead, n_rows, n_cols, seed):
    """softmax: rows sum to 1 along the last axis by default"""
    x = normal(seed, lead + (n_rows, n_cols), scale=3.0)
    got = student.softmax(x)
    expect_shape(expect_array(got, "softmax(x)"), x.shape, "softmax(x)")
    expect_rows_sum_to_one(got, "softmax(x)", inputs=(x,))


@given(scores_and_axis())
def test_sums_to_one_along_the_given_axis(student, reference, case):
    """softmax: sums to 1 along the axis it is given"""
    x, axis = case
    got = student.softmax(x, axis=axis)
    expect_shape(expect_array(got, "softmax(x, axis)"), x.shape, "softmax(x, axis)")
    moved = np.moveaxis(got, axis, -1)
    try:
        expect_rows_sum_to_one(moved, f"softmax(x, axis={axis})", inputs=(x,))
    except Mismatch as error:
        raise Mismatch(f"softmax(x, axis={axis}) should sum to 1 along axis {axis}: {error}") from None


@given(scores_and_axis())
def test_values(student, reference, case):
    """softmax: values equal exp(x) / sum(exp(x)) along the axis"""
    x, axis = case
    expect_close(student.softmax(x, axis=axis), reference.softmax(x, axis=axis), f"softmax(x, axis={axis})", x)


@given(LEAD, SIZE, st.integers(2, 5), SEED, st.sampled_from([1e4, -1e4, 1e3]))
def test_stable_for_large_scores(student, reference, lead, n_rows, n_cols, seed, big):
    """softmax: no nan or inf for scores as large as ±1e4"""
    x = normal(seed, lead + (n_rows, n_cols))
    x[..., 0] = big  # one huge score per row: exp(1e4) overflows without the max subtraction
    got = student.softmax(x)
    expect_finite(expect_array(got, "softmax(x) with scores of ±1e4"), "softmax(x) with scores of ±1e4")
    expect_close(got, reference.softmax(x), "softmax(x) with scores of ±1e4", x)


@given(st.integers(2, 5), st.integers(2, 5), SEED)
def test_each_row_uses_its_own_maximum(student, reference, n_rows, n_cols, seed):
    """softmax: rows near +1e4 and rows near -1e4 in one array are all finite and right"""
    x = normal(seed, (n_rows, n_cols))
    x[0::2] += 1e4
    x[1::2] -= 1e4  # relative to a global maximum these rows underflow to 0 / 0
    got = student.softmax(x)
    expect_finite(expect_array(got, "softmax(x) with rows at +1e4 and -1e4"), "softmax(x) with rows at +1e4 and -1e4")
    expect_close(got, reference.softmax(x), "softmax(x) with rows at +1e4 and -1e4", x)


@given(SIZE, SIZE, SEED, st.floats(-50, 50))
def test_shift_invariance(student, reference, n_rows, n_cols, seed, shift):
    """softmax: adding a constant to every score changes nothing"""
    x = normal(seed, (n_rows, n_cols))
    expect_close(student.softmax(x + shift), reference.softmax(x), "softmax(x + c)", x)


@given(scores_and_axis())
def test_leaves_its_input_unchanged(student, reference, case):
    """softmax: the scores it is given are left unchanged (it returns a new array)"""
    x, axis = case
    _, (args_after, _) = student.inputs_after("softmax", x, axis=axis)
    expect_unchanged("softmax", ("x",), (x,), args_after)
