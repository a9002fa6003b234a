"""Hidden tests for scores.py."""

import numpy as np
from attention_inputs import SEED, SIZE, normal, qkv
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_array, expect_close, expect_shape


@given(qkv())
def test_shape(student, reference, case):
    """attention_scores: shape (..., L_q, L_k), also when L_q != L_k"""
    q, k, _ = case
    got = expect_array(student.attention_scores(q, k), "attention_scores(q, k)")
    expect_shape(got, q.shape[:-1] + (k.shape[-2],), "attention_scores(q, k)", "(..., L_q, L_k)")


@given(qkv())
def test_values(student, reference, case):
    """attention_scores: values equal q·kᵀ / √d_k"""
    q, k, _ = case
    expect_close(student.attention_scores(q, k), reference.attention_scores(q, k), "attention_scores(q, k)", q, k, passport="(..., L_q, L_k)")


@given(st.sampled_from([4, 9, 16]), SIZE, SIZE)
def test_scaled_by_sqrt_d_k(student, reference, d_k, n_q, n_k):
    """attention_scores: scaled by 1/√d_k"""
    q, k = np.ones((n_q, d_k)), np.ones((n_k, d_k))  # every dot product is d_k
    got = expect_array(student.attention_scores(q, k), "attention_scores(q, k)")
    expect_shape(got, (n_q, n_k), "attention_scores(q, k)", "(L_q, L_k)")
    value = float(got.flat[0])
    if not np.isclose(value, np.sqrt(d_k)):
        known = {float(d_k): "no scale at all", 1.0: "a scale of 1/d_k instead of 1/√d_k"}
        why = known.get(round(value, 9), "a different scale")
        raise Mismatch(f"with d_k = {d_k} and every q·k = {d_k}, each score should be {d_k}/√{d_k} = {np.sqrt(d_k):g}, got {value:g}: {why}")


@given(st.integers(1, 3), st.integers(1, 3), SIZE, SIZE, SIZE, SEED)
def test_leading_axes_broadcast(student, reference, batch, heads, n_q, n_k, d_k, seed):
    """attention_scores: leading batch and head axes broadcast"""
    q = normal(seed, (batch, 1, n_q, d_k))
    k = normal(seed + 1, (1, heads, n_k, d_k))
    expect_close(student.attention_scores(q, k), reference.attention_scores(q, k), "attention_scores(q, k)", q, passport="(batch, heads, L_q, L_k)")
