"""Hidden tests for scores.py."""

import numpy as np
from attention_inputs import DTYPE, LEAD, SEED, SIZE, normal, qkv
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_array, expect_close, expect_shape, expect_unchanged


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


def closed_form_cosine(q, k, temperature):
    """One pair at a time: q·k / (max(‖q‖, 1e-8) · max(‖k‖, 1e-8)) / temperature."""
    q64, k64 = q.astype(np.float64), k.astype(np.float64)
    out = np.zeros(np.broadcast_shapes(q.shape[:-2], k.shape[:-2]) + (q.shape[-2], k.shape[-2]))
    for index in np.ndindex(out.shape):
        lead, i, j = index[:-2], index[-2], index[-1]
        a = q64[tuple(min(x, s - 1) for x, s in zip(lead, q.shape[:-2])) + (i,)]
        b = k64[tuple(min(x, s - 1) for x, s in zip(lead, k.shape[:-2])) + (j,)]
        out[index] = a @ b / (max(np.linalg.norm(a), 1e-8) * max(np.linalg.norm(b), 1e-8)) / temperature
    return out


TEMPERATURE = st.sampled_from([1.0, 0.1, 0.05, 2.5])


@given(qkv(), TEMPERATURE)
def test_cosine_values(student, reference, case, temperature):
    """cosine_scores: the cosine of every query and key, divided by the temperature"""
    q, k, _ = case
    expect_close(student.cosine_scores(q, k, temperature), closed_form_cosine(q, k, temperature), f"cosine_scores(q, k, temperature={temperature:g})", q, k, passport="(..., L_q, L_k)")


@given(qkv(dtypes=st.just(np.float64)), TEMPERATURE, st.sampled_from([1e-2, 7.0, 1e4]))
def test_cosine_ignores_the_lengths(student, reference, case, temperature, scale):
    """cosine_scores: scaling the queries or the keys leaves every score unchanged, within ±1/temperature"""
    q, k, _ = case
    base = expect_array(student.cosine_scores(q, k, temperature), "cosine_scores(q, k, temperature)")
    expect_shape(base, q.shape[:-1] + (k.shape[-2],), "cosine_scores(q, k, temperature)", "(..., L_q, L_k)")
    expect_close(student.cosine_scores(q * scale, k, temperature), base, f"cosine_scores(q × {scale:g}, k) against cosine_scores(q, k)", q)
    expect_close(student.cosine_scores(q, k * scale, temperature), base, f"cosine_scores(q, k × {scale:g}) against cosine_scores(q, k)", q)
    if np.abs(base).max() > (1 + 1e-9) / temperature:
        raise Mismatch(f"a cosine lies in [-1, 1], so every score should lie within ±1/temperature = ±{1 / temperature:g}, got {np.abs(base).max():.6g}")


def test_cosine_of_a_zero_vector_is_zero(student, reference):
    """cosine_scores: a zero query or key gives scores of 0, never nan"""
    q = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]])
    k = np.array([[3.0, 0.0, 4.0], [0.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
    expected = np.array([[0.0, 0.0, 0.0], [11 / 15, 0.0, -1 / 3]]) / 0.5
    expect_close(student.cosine_scores(q, k, 0.5), expected, "cosine_scores(q, k, temperature=0.5) with a zero query and a zero key", q, k, passport="(L_q, L_k)")


def closed_form_qk_norm(q, k, gain_q, gain_k, eps):
    d = q.shape[-1]
    q_hat = q / np.sqrt((q.astype(np.float64) ** 2).sum(-1, keepdims=True) / d + eps) * gain_q
    k_hat = k / np.sqrt((k.astype(np.float64) ** 2).sum(-1, keepdims=True) / d + eps) * gain_k
    return np.einsum("...id,...jd->...ij", q_hat, k_hat) / np.sqrt(d)


@given(qkv(), SEED, st.sampled_from([1e-6, 0.5, 3.0]))
def test_qk_norm_values(student, reference, case, seed, eps):
    """qk_norm_scores: RMS-normalised q and k (eps inside the root), times their gains, then q kᵀ / √d"""
    q, k, _ = case
    gain_q, gain_k = normal(seed, q.shape[-1:], q.dtype) + 1.0, normal(seed + 1, q.shape[-1:], q.dtype) - 0.5
    expect_close(student.qk_norm_scores(q, k, gain_q, gain_k, eps=eps), closed_form_qk_norm(q, k, gain_q, gain_k, eps), f"qk_norm_scores(q, k, gain_q, gain_k, eps={eps:g})", q, k, passport="(..., L_q, L_k)")


@given(qkv(dtypes=st.just(np.float64)), SEED)
def test_qk_norm_default_eps(student, reference, case, seed):
    """qk_norm_scores: eps defaults to 1e-6, which shows on small vectors"""
    q, k, _ = case
    q, k = q * 1e-3, k * 1e-3
    gain_q, gain_k = normal(seed, q.shape[-1:]), normal(seed + 1, q.shape[-1:])
    expect_close(student.qk_norm_scores(q, k, gain_q, gain_k), closed_form_qk_norm(q, k, gain_q, gain_k, 1e-6), "qk_norm_scores(q, k, gain_q, gain_k) with |q|, |k| about 1e-3", q, k, passport="(..., L_q, L_k)")


@given(qkv(dtypes=st.just(np.float64)), st.sampled_from([1e3, 1e6]))
def test_qk_norm_bounds_growing_inputs(student, reference, case, scale):
    """qk_norm_scores: multiplying q and k by a large factor leaves the scores (almost) unchanged"""
    q, k, _ = case
    q, k = q * 100.0, k * 100.0  # far above eps, so eps changes nothing that shows
    gains = np.ones(q.shape[-1])
    base = expect_array(student.qk_norm_scores(q, k, gains, gains), "qk_norm_scores(q, k, 1, 1)")
    expect_shape(base, q.shape[:-1] + (k.shape[-2],), "qk_norm_scores(q, k, 1, 1)", "(..., L_q, L_k)")
    grown = expect_array(student.qk_norm_scores(q * scale, k * scale, gains, gains), f"qk_norm_scores(q × {scale:g}, k × {scale:g})")
    if not np.allclose(grown, base, rtol=1e-6, atol=1e-9):
        raise Mismatch(f"after the norm, q and k × {scale:g} should give about the same scores; the largest change is {np.nanmax(np.abs(grown - base)):.6g}")


NEAR_IDENTITY_ATOL = 1e-9
"""How far softcap of scores a millionth of the cap may be from the scores: cap·tanh(x/cap) − x ≈ x³/(3 cap²)."""

SCORES = st.sampled_from([(4,), (2, 3), (2, 3, 5)])


@given(SCORES, SEED, st.sampled_from([50.0, 30.0, 1.0, 0.3]), DTYPE)
def test_softcap_values(student, reference, shape, seed, cap, dtype):
    """softcap: cap · tanh(scores / cap), elementwise, scores of every size"""
    scores = normal(seed, shape, dtype, scale=40.0)
    expect_close(student.softcap(scores, cap), cap * np.tanh(scores.astype(np.float64) / cap), f"softcap(scores, cap={cap:g})", scores, passport="same shape as scores")


@given(SCORES, SEED, st.sampled_from([50.0, 5.0, 1.0]))
def test_softcap_stays_within_the_cap(student, reference, shape, seed, cap):
    """softcap: every result lies strictly within (−cap, cap), keeps the order of the scores, and is near the identity for small scores"""
    scores = normal(seed, shape, scale=100.0)
    got = expect_array(student.softcap(scores, cap), f"softcap(scores, cap={cap:g})")
    expect_shape(got, scores.shape, f"softcap(scores, cap={cap:g})", "same shape as scores")
    if not (np.abs(got) <= cap).all():
        raise Mismatch(f"softcap(scores, cap={cap:g}) should stay within ±{cap:g}, got {np.nanmax(np.abs(got)):.6g}")
    order = np.argsort(scores, axis=None, kind="stable")
    if (np.diff(got.ravel()[order]) < 0).any():
        raise Mismatch(f"softcap(scores, cap={cap:g}) should keep the order of the scores: a larger score never gets a smaller capped one")
    small = scores * 1e-4 * cap / 100.0
    expect_close(student.softcap(small, cap), small, f"softcap of scores far below cap={cap:g} (≈ the scores themselves)", atol=NEAR_IDENTITY_ATOL)


@st.composite
def additive_case(draw, dtypes=DTYPE):
    lead, n_q, n_k, d_q, d_k, d_a, seed = draw(LEAD), draw(SIZE), draw(SIZE), draw(SIZE), draw(SIZE), draw(SIZE), draw(SEED)
    dtype = draw(dtypes)
    return (normal(seed, lead + (n_q, d_q), dtype), normal(seed + 1, lead + (n_k, d_k), dtype), normal(seed + 2, (d_q, d_a), dtype),
            normal(seed + 3, (d_k, d_a), dtype), normal(seed + 4, (d_a,), dtype))


def closed_form_additive(q, k, w_q, w_k, v):
    out = np.zeros(q.shape[:-2] + (q.shape[-2], k.shape[-2]))
    for index in np.ndindex(out.shape):
        lead, i, j = index[:-2], index[-2], index[-1]
        out[index] = v @ np.tanh(q[lead + (i,)] @ w_q + k[lead + (j,)] @ w_k)
    return out


@given(additive_case())
def test_additive_values(student, reference, case):
    """additive_scores: v · tanh(q_i W_q + k_j W_k) for every query i and key j, d_q, d_k and d_a all free"""
    expect_close(student.additive_scores(*case), closed_form_additive(*case), "additive_scores(q, k, w_q, w_k, v)", *case, passport="(..., L_q, L_k)")


@given(additive_case(dtypes=st.just(np.float64)))
def test_additive_shape(student, reference, case):
    """additive_scores: shape (..., L_q, L_k), queries on the rows"""
    q, k = case[0], case[1]
    got = expect_array(student.additive_scores(*case), "additive_scores(q, k, w_q, w_k, v)")
    expect_shape(got, q.shape[:-1] + (k.shape[-2],), "additive_scores(q, k, w_q, w_k, v)", "(..., L_q, L_k)")


@given(LEAD, SIZE, SEED)
def test_softcap_leaves_its_input_unchanged(student, reference, lead, n, seed):
    """softcap: the scores it is given are left unchanged (it returns a new array)"""
    scores = normal(seed, lead + (n, n), scale=30.0)
    _, (args_after, _) = student.inputs_after("softcap", scores, 20.0)
    expect_unchanged("softcap", ("scores",), (scores,), args_after)
