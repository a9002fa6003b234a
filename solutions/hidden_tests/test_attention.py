"""Hidden tests for attention.py: scaled dot-product, self- and cross-attention."""

import numpy as np
from attention_inputs import LEAD, SEED, SIZE, attend_mask, lengths_for, normal, projections, qkv
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import (
    Mismatch,
    expect_array,
    expect_close,
    expect_finite,
    expect_pair,
    expect_rows_sum_to_one,
    expect_shape,
    expect_zero_where,
    expect_unchanged,
)

AXES = ("queries (L_q)", "keys (L_k)")


def checked_pair(result, what, out_shape, weights_shape, out_passport="(..., L_q, d_v)", weights_passport="(..., L_q, L_k)"):
    out, weights = expect_pair(result, what)
    expect_shape(expect_array(out, f"{what}'s output"), out_shape, f"{what}'s output", out_passport)
    expect_shape(expect_array(weights, f"{what}'s weights"), weights_shape, f"{what}'s weights", weights_passport)
    return out, weights


# ---------------------------------------------------------------- scaled_dot_product_attention


@given(qkv())
def test_sdpa_shapes(student, reference, case):
    """scaled_dot_product_attention: output (..., L_q, d_v) and weights (..., L_q, L_k)"""
    q, k, v = case
    checked_pair(student.scaled_dot_product_attention(q, k, v), "scaled_dot_product_attention", q.shape[:-1] + v.shape[-1:], q.shape[:-1] + k.shape[-2:-1])


@given(qkv())
def test_sdpa_rows_sum_to_one(student, reference, case):
    """scaled_dot_product_attention: weight rows sum to 1 over the keys"""
    q, k, v = case
    _, weights = checked_pair(student.scaled_dot_product_attention(q, k, v), "scaled_dot_product_attention", q.shape[:-1] + v.shape[-1:], q.shape[:-1] + k.shape[-2:-1])
    expect_rows_sum_to_one(weights, "scaled_dot_product_attention's weights", AXES, inputs=(q,))


@given(qkv())
def test_sdpa_values(student, reference, case):
    """scaled_dot_product_attention: output and weights equal softmax(q kᵀ/√d_k) and its product with v"""
    q, k, v = case
    out, weights = expect_pair(student.scaled_dot_product_attention(q, k, v), "scaled_dot_product_attention")
    expected_out, expected_weights = reference.scaled_dot_product_attention(q, k, v)
    expect_close(weights, expected_weights, "scaled_dot_product_attention's weights", q, passport="(..., L_q, L_k)")
    expect_close(out, expected_out, "scaled_dot_product_attention's output", q, passport="(..., L_q, d_v)")


@given(st.data())
def test_sdpa_masked_weights_are_zero(student, reference, data):
    """scaled_dot_product_attention: masked weights are exactly 0 and the rest renormalise"""
    q, k, v = data.draw(qkv(dtypes=st.just(np.float64)))
    mask = data.draw(attend_mask(q.shape[:-2], q.shape[-2], k.shape[-2]))
    out, weights = checked_pair(student.scaled_dot_product_attention(q, k, v, mask), "scaled_dot_product_attention with a mask", q.shape[:-1] + v.shape[-1:], mask.shape)
    expect_zero_where(weights, ~mask, "scaled_dot_product_attention with a mask")
    expected_out, expected_weights = reference.scaled_dot_product_attention(q, k, v, mask)
    expect_close(weights, expected_weights, "scaled_dot_product_attention's masked weights", q)
    expect_close(out, expected_out, "scaled_dot_product_attention's masked output", q)


@given(st.data())
def test_sdpa_query_with_no_visible_key(student, reference, data):
    """scaled_dot_product_attention: a query that may see no key gets zero weights and a zero output (never nan)"""
    q, k, v = data.draw(qkv(dtypes=st.just(np.float64)))
    mask = data.draw(attend_mask(q.shape[:-2], q.shape[-2], k.shape[-2]))
    blind = data.draw(st.integers(0, q.shape[-2] - 1), label="query with no visible key")
    mask[..., blind, :] = False
    out, weights = checked_pair(student.scaled_dot_product_attention(q, k, v, mask), "scaled_dot_product_attention with a mask", q.shape[:-1] + v.shape[-1:], mask.shape)
    expected_out, expected_weights = reference.scaled_dot_product_attention(q, k, v, mask)
    expect_close(weights, expected_weights, f"scaled_dot_product_attention's weights when query {blind} may see no key", q, passport="(..., L_q, L_k)")
    expect_close(out, expected_out, f"scaled_dot_product_attention's output when query {blind} may see no key", q, passport="(..., L_q, d_v)")


@given(st.data())
def test_sdpa_mask_broadcasts(student, reference, data):
    """scaled_dot_product_attention: an (L_q, L_k) mask broadcasts over batch and head axes"""
    batch, heads = data.draw(st.integers(1, 3)), data.draw(st.integers(2, 3))
    n_q, n_k, d, seed = data.draw(SIZE), data.draw(SIZE), data.draw(SIZE), data.draw(SEED)
    q, k, v = normal(seed, (batch, heads, n_q, d)), normal(seed + 1, (batch, heads, n_k, d)), normal(seed + 2, (batch, heads, n_k, d))
    mask = data.draw(attend_mask((), n_q, n_k))
    _, weights = checked_pair(student.scaled_dot_product_attention(q, k, v, mask), "scaled_dot_product_attention", (batch, heads, n_q, d), (batch, heads, n_q, n_k))
    expect_zero_where(weights, ~mask, "scaled_dot_product_attention with an (L_q, L_k) mask")
    expect_close(weights, reference.scaled_dot_product_attention(q, k, v, mask)[1], "scaled_dot_product_attention's weights", q)


@given(qkv(dtypes=st.just(np.float64)), st.sampled_from([1e4, -1e4]))
def test_sdpa_stable_for_large_scores(student, reference, case, big):
    """scaled_dot_product_attention: no nan or inf when scores reach ±1e4"""
    q, k, v = case
    q = q * 0 + big / np.sqrt(q.shape[-1])  # every score is ±1e4 times the sum of the key's entries
    out, weights = expect_pair(student.scaled_dot_product_attention(q, k, v), "scaled_dot_product_attention with scores of ±1e4")
    expect_finite(expect_array(weights, "weights with scores of ±1e4"), "scaled_dot_product_attention's weights with scores of ±1e4")
    expect_finite(expect_array(out, "output with scores of ±1e4"), "scaled_dot_product_attention's output with scores of ±1e4")
    expect_close(out, reference.scaled_dot_product_attention(q, k, v)[0], "scaled_dot_product_attention's output with scores of ±1e4", q)


@given(SIZE, SIZE, st.integers(2, 5), SEED)
def test_sdpa_scale_is_sqrt_d_k(student, reference, n_q, n_k, d_v, seed):
    """scaled_dot_product_attention: scores are scaled by 1/√d_k, not 1/√d_v"""
    d_k = d_v + 3  # distinct widths: a scale by the wrong one changes the weights
    q, k, v = normal(seed, (n_q, d_k), scale=2.0), normal(seed + 1, (n_k, d_k), scale=2.0), normal(seed + 2, (n_k, d_v))
    _, weights = expect_pair(student.scaled_dot_product_attention(q, k, v), "scaled_dot_product_attention")
    expect_close(weights, reference.scaled_dot_product_attention(q, k, v)[1], f"scaled_dot_product_attention's weights (d_k = {d_k}, d_v = {d_v})", q)


@given(LEAD, SIZE, SIZE, SIZE, SEED)
def test_sdpa_identical_keys_give_uniform_weights(student, reference, lead, n_q, n_k, d, seed):
    """scaled_dot_product_attention: identical keys give uniform weights (ties blend, they do not pick)"""
    q = normal(seed, lead + (n_q, d))
    k = np.broadcast_to(normal(seed + 1, (1, d)), lead + (n_k, d)).copy()
    v = normal(seed + 2, lead + (n_k, d))
    _, weights = expect_pair(student.scaled_dot_product_attention(q, k, v), "scaled_dot_product_attention")
    expect_close(weights, np.full(lead + (n_q, n_k), 1.0 / n_k), "weights over identical keys", q)


BIG = 100.0  # a feature or a projection of 100 on both sides: scores reach about ±1e4


@given(st.data())
def test_sdpa_masked_rows_far_below_zero(student, reference, data):
    """scaled_dot_product_attention: with a mask, rows whose every score is far below zero (about -1e4) are right"""
    q, k, v = data.draw(qkv(dtypes=st.just(np.float64)))
    mask = data.draw(attend_mask(q.shape[:-2], q.shape[-2], k.shape[-2]))
    d_k = q.shape[-1]
    # One more feature, BIG in every query and -BIG in every key: each score drops by about 1e4 / √d_k.
    q = np.concatenate([q, np.full(q.shape[:-1] + (1,), BIG)], axis=-1)
    k = np.concatenate([k, np.full(k.shape[:-1] + (1,), -BIG)], axis=-1)
    out, weights = checked_pair(student.scaled_dot_product_attention(q, k, v, mask), "scaled_dot_product_attention with a mask", q.shape[:-1] + v.shape[-1:], mask.shape)
    what = f"scaled_dot_product_attention with a mask and every score about {-BIG * BIG / np.sqrt(d_k + 1):.0f}"
    expect_finite(weights, f"{what}: weights")
    expect_zero_where(weights, ~mask, what)
    expected_out, expected_weights = reference.scaled_dot_product_attention(q, k, v, mask)
    expect_close(weights, expected_weights, f"{what}: weights", q)
    expect_close(out, expected_out, f"{what}: output", q)


@given(st.data())
def test_sdpa_leaves_its_inputs_unchanged(student, reference, data):
    """scaled_dot_product_attention: q, k, v and the mask it is given are left unchanged"""
    q, k, v = data.draw(qkv(dtypes=st.just(np.float64)))
    mask = data.draw(attend_mask(q.shape[:-2], q.shape[-2], k.shape[-2]))
    _, (args_after, _) = student.inputs_after("scaled_dot_product_attention", q, k, v, mask)
    expect_unchanged("scaled_dot_product_attention", ("q", "k", "v", "mask"), (q, k, v, mask), args_after)


# ---------------------------------------------------------------- self_attention


@given(projections())
def test_self_attention_shapes(student, reference, case):
    """self_attention: output (..., T, d_v) and weights (..., T, T)"""
    x, w_q, w_k, w_v = case
    checked_pair(student.self_attention(x, w_q, w_k, w_v), "self_attention", x.shape[:-1] + (w_v.shape[1],), x.shape[:-1] + (x.shape[-2],), "(..., T, d_v)", "(..., T, T)")


@given(projections(), st.booleans())
def test_self_attention_values(student, reference, case, causal):
    """self_attention: equals softmax((x W_Q)(x W_K)ᵀ/√d_k)(x W_V), causal or not"""
    x, w_q, w_k, w_v = case
    out, weights = expect_pair(student.self_attention(x, w_q, w_k, w_v, causal=causal), "self_attention")
    expected_out, expected_weights = reference.self_attention(x, w_q, w_k, w_v, causal=causal)
    expect_close(weights, expected_weights, f"self_attention's weights (causal={causal})", x, passport="(..., T, T)")
    expect_close(out, expected_out, f"self_attention's output (causal={causal})", x, passport="(..., T, d_v)")


@given(projections())
def test_self_attention_causal_weights(student, reference, case):
    """self_attention: with causal=True no weight falls on a later key"""
    x, w_q, w_k, w_v = case
    n = x.shape[-2]
    _, weights = checked_pair(student.self_attention(x, w_q, w_k, w_v, causal=True), "causal self_attention", x.shape[:-1] + (w_v.shape[1],), x.shape[:-1] + (n,), "(..., T, d_v)", "(..., T, T)")
    expect_zero_where(weights, np.triu(np.ones((n, n), dtype=bool), k=1), "causal self_attention")
    expect_rows_sum_to_one(weights, "causal self_attention's weights", AXES, inputs=(x,))


@given(projections(), st.data())
def test_self_attention_no_future_leakage(student, reference, case, data):
    """self_attention: with causal=True, changing tokens after position t leaves outputs up to t unchanged"""
    x, w_q, w_k, w_v = case
    n = x.shape[-2]
    t = data.draw(st.integers(0, n - 1))
    changed = x.copy()
    changed[..., t + 1 :, :] += normal(data.draw(SEED), changed[..., t + 1 :, :].shape, scale=5.0)
    before, _ = expect_pair(student.self_attention(x, w_q, w_k, w_v, causal=True), "causal self_attention")
    after, _ = expect_pair(student.self_attention(changed, w_q, w_k, w_v, causal=True), "causal self_attention")
    try:
        expect_close(after[..., : t + 1, :], np.asarray(before)[..., : t + 1, :], f"outputs at positions 0..{t}", x)
    except Mismatch as error:
        raise Mismatch(f"future leakage: changing the tokens after position {t} changed the outputs at positions up to {t}. {error}") from None


@given(st.integers(2, 4), SIZE, SIZE, SEED)
def test_self_attention_batch_items_independent(student, reference, batch, n, d, seed):
    """self_attention: batch items do not affect each other"""
    x, w = normal(seed, (batch, n, d)), normal(seed + 1, (3, d, d))
    changed = x.copy()
    changed[0] += 3.0
    shapes = (x.shape[:-1] + (d,), x.shape[:-1] + (n,), "(B, T, d_v)", "(B, T, T)")
    before, _ = checked_pair(student.self_attention(x, *w), "self_attention", *shapes)
    after, _ = checked_pair(student.self_attention(changed, *w), "self_attention", *shapes)
    expect_close(after[1:], before[1:], "outputs of batch items 1.. after changing item 0", x)


# ---------------------------------------------------------------- cross_attention


@st.composite
def cross_case(draw, batch_equals_queries=False):
    batch = draw(st.integers(1, 4))
    n_q = batch if batch_equals_queries else draw(SIZE)
    n_k, d, d_k, d_v, seed = draw(st.integers(2, 6)), draw(SIZE), draw(SIZE), draw(SIZE), draw(SEED)
    rng = np.random.default_rng(seed)
    lengths = lengths_for(rng, batch, n_k)
    lengths[0] = max(1, n_k - 1)  # at least one sequence is padded
    mask = np.arange(n_k)[None, :] < lengths[:, None]
    return (
        normal(seed, (batch, n_q, d)),
        normal(seed + 1, (batch, n_k, d)),
        normal(seed + 2, (d, d_k)),
        normal(seed + 3, (d, d_k)),
        normal(seed + 4, (d, d_v)),
        mask,
    )


@given(cross_case())
def test_cross_attention_shapes(student, reference, case):
    """cross_attention: output (B, L_q, d_v) and weights (B, L_q, L_k)"""
    x_q, x_kv, w_q, w_k, w_v, _ = case
    checked_pair(student.cross_attention(x_q, x_kv, w_q, w_k, w_v), "cross_attention", x_q.shape[:-1] + (w_v.shape[1],), x_q.shape[:-1] + (x_kv.shape[1],), "(B, L_q, d_v)", "(B, L_q, L_k)")


@given(cross_case())
def test_cross_attention_values(student, reference, case):
    """cross_attention: queries from x_q, keys and values from x_kv"""
    x_q, x_kv, w_q, w_k, w_v, _ = case
    out, weights = expect_pair(student.cross_attention(x_q, x_kv, w_q, w_k, w_v), "cross_attention")
    expected_out, expected_weights = reference.cross_attention(x_q, x_kv, w_q, w_k, w_v)
    expect_close(weights, expected_weights, "cross_attention's weights", x_q, passport="(B, L_q, L_k)")
    expect_close(out, expected_out, "cross_attention's output", x_q, passport="(B, L_q, d_v)")


@given(st.one_of(cross_case(), cross_case(batch_equals_queries=True)))
def test_cross_attention_padding(student, reference, case):
    """cross_attention: padded encoder keys get no weight, also when B == L_q"""
    x_q, x_kv, w_q, w_k, w_v, mask = case
    _, weights = checked_pair(student.cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=mask), "cross_attention with a padding mask", x_q.shape[:-1] + (w_v.shape[1],), x_q.shape[:-1] + (x_kv.shape[1],), "(B, L_q, d_v)", "(B, L_q, L_k)")
    expect_zero_where(weights, ~mask[:, None, :], "cross_attention with a padding mask")
    expect_close(weights, reference.cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=mask)[1], "cross_attention's weights with a padding mask", x_q)


@given(st.one_of(cross_case(), cross_case(batch_equals_queries=True)), SEED)
def test_cross_attention_ignores_padding_content(student, reference, case, seed):
    """cross_attention: outputs do not change with what sits in padded positions"""
    x_q, x_kv, w_q, w_k, w_v, mask = case
    scrambled = x_kv.copy()
    scrambled[~mask] = normal(seed, scrambled[~mask].shape, scale=10.0)
    shapes = (x_q.shape[:-1] + (w_v.shape[1],), x_q.shape[:-1] + (x_kv.shape[1],), "(B, L_q, d_v)", "(B, L_q, L_k)")
    before, _ = checked_pair(student.cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=mask), "cross_attention", *shapes)
    after, _ = checked_pair(student.cross_attention(x_q, scrambled, w_q, w_k, w_v, kv_padding_mask=mask), "cross_attention", *shapes)
    expect_close(after, before, "cross_attention's output after changing only padded encoder tokens", x_q)


# ---------------------------------------------------------------- extreme magnitudes, every option

@given(projections(), st.booleans())
def test_self_attention_stable_for_large_scores(student, reference, case, causal):
    """self_attention: no nan or inf and the right values when scores reach ±1e4, causal or not"""
    x, w_q, w_k, w_v = case
    w_q, w_k = w_q * BIG, w_k * BIG
    out, weights = expect_pair(student.self_attention(x, w_q, w_k, w_v, causal=causal), "self_attention")
    what = f"self_attention with scores of about ±1e4 (causal={causal})"
    expect_finite(expect_array(weights, f"{what}'s weights"), f"{what}'s weights")
    expect_finite(expect_array(out, f"{what}'s output"), f"{what}'s output")
    expected_out, expected_weights = reference.self_attention(x, w_q, w_k, w_v, causal=causal)
    expect_close(weights, expected_weights, f"{what}'s weights", x, passport="(..., T, T)")
    expect_close(out, expected_out, f"{what}'s output", x, passport="(..., T, d_v)")


@given(cross_case(), st.booleans())
def test_cross_attention_stable_for_large_scores(student, reference, case, padded):
    """cross_attention: no nan or inf and the right values when scores reach ±1e4, with or without a padding mask"""
    x_q, x_kv, w_q, w_k, w_v, mask = case
    w_q, w_k = w_q * BIG, w_k * BIG
    mask = mask if padded else None
    out, weights = expect_pair(student.cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=mask), "cross_attention")
    what = f"cross_attention with scores of about ±1e4 ({'with' if padded else 'without'} a padding mask)"
    expect_finite(expect_array(weights, f"{what}'s weights"), f"{what}'s weights")
    expect_finite(expect_array(out, f"{what}'s output"), f"{what}'s output")
    expected_out, expected_weights = reference.cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=mask)
    expect_close(weights, expected_weights, f"{what}'s weights", x_q, passport="(B, L_q, L_k)")
    expect_close(out, expected_out, f"{what}'s output", x_q, passport="(B, L_q, d_v)")
