"""Hidden tests for linear_attention.py: the feature map, the quadratic form, the recurrent form and its state."""

import numpy as np
from attention_inputs import DTYPE, LEAD, SEED, SIZE, normal, qkv
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import (
    Mismatch,
    expect_array,
    expect_close,
    expect_every_row,
    expect_finite,
    expect_pair,
    expect_shape,
    expect_unchanged,
)

# ---------------------------------------------------------------- the feature map


@given(LEAD, SIZE, SIZE, SEED, DTYPE)
def test_feature_map_values(student, reference, lead, n, d, seed, dtype):
    """elu_feature_map: x + 1 where x > 0, exp(x) elsewhere"""
    x = normal(seed, lead + (n, d), dtype, scale=2.0)
    expect_close(student.elu_feature_map(x), reference.elu_feature_map(x), "elu_feature_map(x)", x, passport="the shape of x")


@given(SIZE, SEED)
def test_feature_map_large_inputs(student, reference, n, seed):
    """elu_feature_map: inputs near ±1e4 give x + 1 and about 0, finite"""
    x = normal(seed, (2, n)) + np.array([[1e4], [-1e4]])  # row 0 far above zero, row 1 far below
    got = student.elu_feature_map(x)
    what = "elu_feature_map(x) with x near ±1e4"
    expect_finite(expect_array(got, what), what)
    expect_close(got, reference.elu_feature_map(x), what, x, passport="the shape of x")


# ---------------------------------------------------------------- the quadratic form


@given(qkv(same_length=True))
def test_masked_causal_values(student, reference, case):
    """linear_attention_masked: with causal=True, row i is the weighted mean of v_0..v_i, weights φ(q_i)·φ(k_j)"""
    q, k, v = case
    got = student.linear_attention_masked(q, k, v, causal=True)
    expect_close(got, reference.linear_attention_masked(q, k, v, causal=True), "linear_attention_masked(q, k, v, causal=True)", q, k, v, passport="(..., L_q, d_v)")


@given(qkv())
def test_masked_full_values(student, reference, case):
    """linear_attention_masked: with causal=False every query reads every key (L_q and L_k may differ)"""
    q, k, v = case
    got = student.linear_attention_masked(q, k, v, causal=False)
    expect_close(got, reference.linear_attention_masked(q, k, v, causal=False), "linear_attention_masked(q, k, v, causal=False)", q, k, v, passport="(..., L_q, d_v)")


@given(qkv(same_length=True, dtypes=st.just(np.float64)), SEED)
def test_masked_future_leaves_the_past(student, reference, case, seed):
    """linear_attention_masked: with causal=True, changing the last key and value leaves every earlier row unchanged"""
    q, k, v = case
    k2, v2 = k.copy(), v.copy()
    k2[..., -1, :] = normal(seed, k.shape[:-2] + k.shape[-1:])
    v2[..., -1, :] = normal(seed + 1, v.shape[:-2] + v.shape[-1:])
    before = expect_array(student.linear_attention_masked(q, k, v, causal=True), "linear_attention_masked(q, k, v)")
    after = expect_array(student.linear_attention_masked(q, k2, v2, causal=True), "linear_attention_masked(q, k', v') with a new last key and value")
    expect_shape(after, before.shape, "linear_attention_masked(q, k', v')", "(..., L_q, d_v)")
    expect_close(after[..., :-1, :], before[..., :-1, :], "the rows before the last, after the last key and value changed", q, k, v)


# ---------------------------------------------------------------- the recurrent form

# The memory test measures the algorithm the lesson teaches: a state of d_k × d_v, whatever L. At
# L = 1024 and d_k = d_v = 48 the (L, L) weights are 8 MiB, and a state per position
# (L, d_k, d_v), what a cumulative sum over the positions holds, is 18 MiB; the recurrence needs
# the inputs as the worker holds them (twice: the message and the arrays decoded from it), the
# answer, φ of the queries and keys if taken all at once (as large as q and k), a fixed allowance
# for the worker and a dozen states: about 8.6 MiB, where the quadratic form holds its weights
# on top of all that. L stays small enough for a Python loop over the positions to answer within
# the call's deadline while its memory is measured.
MEMORY_LENGTH, MEMORY_WIDTH = 1 << 10, 48
INPUT_COPIES = 2
WORKER_ALLOWANCE_BYTES = 5 << 20
STATES_ALLOWED = 12


def recurrent_budget(q, k, v) -> int:
    """What the recurrence may hold during one call: see the comment above."""
    inputs = q.nbytes + k.nbytes + v.nbytes
    state = q.shape[-1] * v.shape[-1] * 8
    return INPUT_COPIES * inputs + v.nbytes + q.nbytes + k.nbytes + WORKER_ALLOWANCE_BYTES + STATES_ALLOWED * state


def test_recurrent_keeps_one_state(student, reference):
    """linear_attention_recurrent: holds one d_k × d_v state, never an (L, L) array nor a state per position (peak memory at L = 1024), and every row of its answer is right"""
    q, k, v = (normal(seed, (MEMORY_LENGTH, MEMORY_WIDTH)) for seed in (11, 12, 13))
    budget = recurrent_budget(q, k, v)
    result, peak = student.memory_within(budget, "linear_attention_recurrent", q, k, v)
    what = f"linear_attention_recurrent(q, k, v) at L = {MEMORY_LENGTH}, d_k = d_v = {MEMORY_WIDTH}"
    got, _state = expect_pair(result, what, "(out, (S, z))")
    expect_shape(expect_array(got, what), v.shape, what, "(L, d_v)")
    if peak > budget:  # the peak itself is not told: the kernel's count of it moves by a page or two between runs
        raise Mismatch(
            f"linear_attention_recurrent held more than {budget / 2**20:.1f} MiB at L = {MEMORY_LENGTH}, d_k = d_v = {MEMORY_WIDTH}; the "
            f"recurrence needs at most that (the inputs, the answer and one {MEMORY_WIDTH} x {MEMORY_WIDTH} "
            f"state). The (L, L) weights are {MEMORY_LENGTH**2 * 8 / 2**20:.0f} MiB and a state per position "
            f"{MEMORY_LENGTH * MEMORY_WIDTH**2 * 8 / 2**20:.0f} MiB: update one running state and normaliser, position by position"
        )
    expect_every_row(got, reference.linear_attention_masked(q, k, v, causal=True), what, q, k, v)


@given(qkv(same_length=True))
def test_recurrent_equals_masked(student, reference, case):
    """linear_attention_recurrent: equals linear_attention_masked(q, k, v, causal=True)"""
    q, k, v = case
    expected = reference.linear_attention_masked(q, k, v, causal=True)
    what = "linear_attention_recurrent(q, k, v)"
    got, state = expect_pair(student.linear_attention_recurrent(q, k, v), what, "(out, (S, z))")
    expect_close(got, expected, what, q, k, v, passport="(..., L, d_v)")
    expect_state(state, past_state(reference, k, v), what, q, k, v)


@given(LEAD, SIZE, SIZE, SIZE, SEED)
def test_recurrent_large_scores(student, reference, lead, n, d_k, d_v, seed):
    """linear_attention_recurrent: queries and keys near ±50 (features from about 0 to 51) stay finite and right"""
    q = normal(seed, lead + (n, d_k), scale=50.0)
    k = normal(seed + 1, lead + (n, d_k), scale=50.0)
    k[..., 0] = np.abs(k[..., 0]) + 1.0  # every key has a feature above 1, so no row's normaliser underflows
    q[..., 0] = np.abs(q[..., 0]) + 1.0
    v = normal(seed + 2, lead + (n, d_v))
    what = "linear_attention_recurrent(q, k, v) with q and k near ±50"
    got, _state = expect_pair(student.linear_attention_recurrent(q, k, v), what, "(out, (S, z))")
    expect_finite(expect_array(got, what), what)
    expect_close(got, reference.linear_attention_masked(q, k, v, causal=True), what, q, k, v, passport="(..., L, d_v)")


@given(st.integers(2, 3), st.integers(2, 3), st.integers(2, 3), SIZE, SIZE, SIZE, SEED)
def test_recurrent_leading_axes_broadcast(student, reference, a, b, c, n, d_k, d_v, seed):
    """linear_attention_recurrent: the leading axes of q, k and v broadcast, each input bringing one of its own"""
    q = normal(seed, (a, 1, 1, n, d_k))
    k = normal(seed + 1, (1, b, 1, n, d_k))
    v = normal(seed + 2, (1, 1, c, n, d_v))
    expected = reference.linear_attention_masked(q, k, v, causal=True)
    what = f"linear_attention_recurrent(q, k, v) with q {q.shape}, k {k.shape}, v {v.shape}"
    got, _state = expect_pair(student.linear_attention_recurrent(q, k, v), what, "(out, (S, z))")
    expect_close(got, expected, what, q, k, v, passport="(a, b, c, L, d_v)")


def past_state(reference, k_past, v_past):
    """The state after positions ``k_past``, ``v_past`` (..., t, d): S = Σ_j φ(k_j) v_jᵀ, z = Σ_j φ(k_j)."""
    features = reference.elu_feature_map(k_past)  # (..., t, d_k)
    return np.swapaxes(features, -1, -2) @ v_past, features.sum(axis=-2)  # (..., d_k, d_v), (..., d_k)


def expect_state(state, expected, what: str, *inputs) -> None:
    """The state a call returned is ``expected`` (S, z): every position's keys and values."""
    s, z = expect_pair(state, f"{what}: the state it returns", "(S, z)")
    expect_close(s, expected[0], f"{what}: the S it returns (Σ over every position of φ(k_j) v_jᵀ)", *inputs, passport="(..., d_k, d_v)")
    expect_close(z, expected[1], f"{what}: the z it returns (Σ over every position of φ(k_j))", *inputs, passport="(..., d_k)")


@st.composite
def continuation(draw):
    """(q, k, v) of L new positions and the positions before them (q_past, k_past, v_past): with
    the inputs' leading axes, or none (one state shared by every sequence, which broadcasts)."""
    q, k, v = draw(qkv(same_length=True, dtypes=st.just(np.float64)))
    past, seed, shared = draw(SIZE), draw(SEED), draw(st.booleans())
    lead = () if shared else q.shape[:-2]
    q_past = normal(seed, q.shape[:-2] + (past, q.shape[-1]))
    k_past, v_past = normal(seed + 1, lead + (past, k.shape[-1])), normal(seed + 2, lead + (past, v.shape[-1]))
    return (q, k, v), (q_past, k_past, v_past)


@given(continuation())
def test_recurrent_continues_a_state_it_did_not_build(student, reference, case):
    """linear_attention_recurrent: from a state of earlier positions it did not compute, each output reads those positions too, and the state returned holds every position"""
    (q, k, v), (q_past, k_past, v_past) = case
    given_state = past_state(reference, k_past, v_past)
    shared = " shared by every sequence" if given_state[0].ndim < q.ndim else ""
    what = f"linear_attention_recurrent(q, k, v, state) from the state{shared} of {k_past.shape[-2]} earlier positions"
    out, state = expect_pair(student.linear_attention_recurrent(q, k, v, state=given_state), what, "(out, (S, z))")
    lead = q.shape[:-2]
    k_past, v_past = (np.broadcast_to(x, lead + x.shape[-2:]) for x in (k_past, v_past))
    whole = reference.linear_attention_masked(*(np.concatenate(pair, axis=-2) for pair in ((q_past, q), (k_past, k), (v_past, v))), causal=True)
    expect_close(out, whole[..., k_past.shape[-2] :, :], f"{what}: its output", q, k, v, passport="(..., L, d_v)")
    expect_state(state, past_state(reference, np.concatenate([k_past, k], axis=-2), np.concatenate([v_past, v], axis=-2)), what, q, k, v)


@given(continuation())
def test_recurrent_leaves_the_state_unchanged(student, reference, case):
    """linear_attention_recurrent: the state passed in is left as it was (the caller may use it again)"""
    (q, k, v), (_q_past, k_past, v_past) = case
    given_state = past_state(reference, k_past, v_past)
    result, (_args_after, kwargs_after) = student.inputs_after("linear_attention_recurrent", q, k, v, state=given_state)
    expect_pair(result, "linear_attention_recurrent(q, k, v, state)", "(out, (S, z))")
    after = kwargs_after.get("state")
    after = tuple(after) if isinstance(after, (tuple, list)) and len(after) == 2 else (None, None)
    expect_unchanged("linear_attention_recurrent", ("S of the state", "z of the state"), given_state, after)
