"""Public tests for attention.py, on the lessons' worked examples."""

import numpy as np
from attention import cross_attention, scaled_dot_product_attention, self_attention

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_rows_sum_to_one, expect_shape, expect_unchanged, expect_zero_where


def test_one_query_three_keys():
    """scaled_dot_product_attention: one query, three keys; ties blend: output [15e, 10 + 5e] / (2e + 1) ≈ [6.3348, 3.6652] (6.33 and 3.67 to two decimals)"""
    q = np.array([[1.0, 0.0]]) * np.sqrt(2)  # cancels the 1/√2 scale, so the scores are (1, 0, 1)
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    v = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
    out, weights = scaled_dot_product_attention(q, k, v)
    e = np.e
    expect_close(weights, np.array([[e, 1, e]]) / (2 * e + 1), "the weights (they should be (e, 1, e) / (2e + 1))")
    expect_close(out, np.array([[15 * e, 10 + 5 * e]]) / (2 * e + 1), "the output (≈ [6.3348, 3.6652])")


def test_shapes():
    """scaled_dot_product_attention: Q (5 × 16), K (7 × 16), V (7 × 32) give weights (5 × 7) and output (5 × 32)"""
    rng = np.random.default_rng(0)
    out, weights = scaled_dot_product_attention(rng.standard_normal((5, 16)), rng.standard_normal((7, 16)), rng.standard_normal((7, 32)))
    expect_shape(weights, (5, 7), "the weights", "(L_q, L_k)")
    expect_shape(out, (5, 32), "the output", "(L_q, d_v)")
    expect_rows_sum_to_one(weights, "the weights", ("queries (L_q)", "keys (L_k)"))


def test_masked_row():
    """scaled_dot_product_attention: a masked key gets weight exactly 0"""
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [3.0, 3.0]])
    mask = np.array([[True, True, False], [True, True, True]])
    _, weights = scaled_dot_product_attention(q, k, np.eye(3), mask)
    expect_zero_where(weights, ~mask, "the masked weights")
    expect_rows_sum_to_one(weights, "the weights")


def test_a_query_with_no_visible_key():
    """scaled_dot_product_attention: a query that may see no key gets zero weights and a zero output, not nan"""
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0]])
    mask = np.array([[False, False], [True, True]])
    out, weights = scaled_dot_product_attention(q, k, np.array([[1.0, 2.0], [3.0, 4.0]]), mask)
    expect_close(weights[0], [0.0, 0.0], "the weights of query 0, which may see no key")
    expect_close(out[0], [0.0, 0.0], "the output of query 0")
    expect_rows_sum_to_one(weights[1:], "the weights of query 1")


def test_two_tokens_causal():
    """self_attention: the two-token example, causal: weights [[1, 0], [0.43, 0.57]], outputs [0.54, -0.16] and [0.42, 0.24]"""
    x = np.array([[1.00, 0.20], [0.30, 0.90]])
    values = np.array([[0.54, -0.16], [0.33, 0.54]])
    w_v = np.linalg.solve(x, values)  # chosen so that x @ w_v gives the lesson's values
    out, weights = self_attention(x, np.eye(2), np.eye(2), w_v, causal=True)
    expect_close(weights, [[1.0, 0.0], [0.43, 0.57]], "the weights", atol=0.005)
    expect_close(out, [[0.54, -0.16], [0.42, 0.24]], "the outputs", atol=0.005)


def test_encoder_decoder_shapes():
    """cross_attention: B = 2, 3 target and 4 source positions give weights (2, 3, 4)"""
    rng = np.random.default_rng(1)
    w = rng.standard_normal((3, 8, 8))
    out, weights = cross_attention(rng.standard_normal((2, 3, 8)), rng.standard_normal((2, 4, 8)), *w)
    expect_shape(weights, (2, 3, 4), "the weights", "(B, L_q, L_k)")
    expect_shape(out, (2, 3, 8), "the output", "(B, L_q, d_v)")


def test_cross_attention_padding():
    """cross_attention: padded source positions get no weight"""
    rng = np.random.default_rng(2)
    w = rng.standard_normal((3, 4, 4))
    mask = np.array([[True, True, False], [True, True, True]])
    _, weights = cross_attention(rng.standard_normal((2, 2, 4)), rng.standard_normal((2, 3, 4)), *w, kv_padding_mask=mask)
    expect_zero_where(weights, ~mask[:, None, :], "the weights on padded keys")
    assert (weights[1] > 0).all(), "sequence 1 has no padding: every key should get some weight"


def test_a_batch_is_attended_one_item_at_a_time():
    """scaled_dot_product_attention: a batch of two with a (4, 4) causal mask gives each item's own answer"""
    rng = np.random.default_rng(4)
    q, k, v = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 4, 5))
    mask = np.tril(np.ones((4, 4), dtype=bool))
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    expect_shape(out, (2, 4, 5), "the output", "(B, L_q, d_v)")
    expect_rows_sum_to_one(weights, "the weights", ("batch (B)", "queries (L_q)", "keys (L_k)"))
    for b in range(2):
        alone, alone_weights = scaled_dot_product_attention(q[b], k[b], v[b], mask)
        expect_close(out[b], alone, f"the output of item {b} (attended alone, it should be the same)")
        expect_close(weights[b], alone_weights, f"the weights of item {b}")


def test_the_unmasked_two_tokens():
    """self_attention: the two-token example without the mask: weights softmax([0.74, 0.34]) and softmax([0.34, 0.64])"""
    x = np.array([[1.00, 0.20], [0.30, 0.90]])
    values = np.array([[0.54, -0.16], [0.33, 0.54]])
    out, weights = self_attention(x, np.eye(2), np.eye(2), np.linalg.solve(x, values))
    scores = np.array([[1.04, 0.48], [0.48, 0.90]]) / np.sqrt(2)
    expected = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    expect_close(weights, expected, "the weights", atol=1e-6)
    expect_close(out, expected @ values, "the outputs (weights @ values)", atol=1e-6)


def test_the_future_does_not_leak():
    """self_attention: with causal=True, changing the last token changes no earlier output"""
    rng = np.random.default_rng(5)
    x, (w_q, w_k, w_v) = rng.standard_normal((2, 4, 3)), rng.standard_normal((3, 3, 2))
    changed = x.copy()
    changed[:, -1] += 10.0
    before, _ = self_attention(x, w_q, w_k, w_v, causal=True)
    after, _ = self_attention(changed, w_q, w_k, w_v, causal=True)
    expect_close(after[:, :-1], before[:, :-1], "the outputs at positions 0..2 after token 3 changed")


def test_self_attention_projects_with_each_weight():
    """self_attention: Q = x W_Q, K = x W_K, V = x W_V, then softmax(Q Kᵀ / √d_k) V, with d_model = 3, d_k = 2, d_v = 4"""
    rng = np.random.default_rng(6)
    x, w_q, w_k, w_v = rng.standard_normal((5, 3)), rng.standard_normal((3, 2)), rng.standard_normal((3, 2)), rng.standard_normal((3, 4))
    scores = (x @ w_q) @ (x @ w_k).T / np.sqrt(2)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    out, got = self_attention(x, w_q, w_k, w_v)
    expect_close(got, weights, "the weights")
    expect_close(out, weights @ (x @ w_v), "the output")


def test_cross_attention_reads_the_encoder():
    """cross_attention: queries from the decoder, keys and values from the encoder; padded encoder positions change nothing"""
    rng = np.random.default_rng(7)
    x_q, x_kv, (w_q, w_k, w_v) = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4)), rng.standard_normal((3, 4, 4))
    out, weights = cross_attention(x_q, x_kv, w_q, w_k, w_v)
    scores = (x_q @ w_q) @ np.swapaxes(x_kv @ w_k, -1, -2) / 2.0
    expected = np.exp(scores - scores.max(axis=-1, keepdims=True))
    expected /= expected.sum(axis=-1, keepdims=True)
    expect_close(weights, expected, "the weights (softmax of (x_q W_Q)(x_kv W_K)ᵀ / √d_k)")
    expect_close(out, expected @ (x_kv @ w_v), "the output")
    real = np.array([[True, True, True, False, False], [True, True, True, True, True]])
    changed = x_kv.copy()
    changed[0, 3:] = 50.0
    before, _ = cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=real)
    after, _ = cross_attention(x_q, changed, w_q, w_k, w_v, kv_padding_mask=real)
    expect_close(after, before, "the output after the padded encoder positions changed")


def by_hand(q, k, v, mask=None):
    """Attention written out, the oracle: masked scores -inf, a query that may see no key a zero row."""
    scores = q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2) / np.sqrt(q.shape[-1])
    visible = np.ones(scores.shape, dtype=bool) if mask is None else np.broadcast_to(mask, scores.shape)
    scores = np.where(visible, scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores - np.where(np.isneginf(top), 0.0, top))
    total = weights.sum(axis=-1, keepdims=True)
    weights = weights / np.where(total > 0, total, 1.0)
    return weights @ v.astype(np.float64), weights


def test_float32_with_a_mask_of_the_queries():
    """scaled_dot_product_attention: float32 (2, 2, L, d) inputs, a mask of the keys (B, 1, 1, L_k) and one of the queries (B, 1, L_q, 1) that leaves a query no key"""
    rng = np.random.default_rng(8)
    q, k, v = rng.standard_normal((2, 2, 3, 4)).astype(np.float32), rng.standard_normal((2, 2, 5, 4)).astype(np.float32), rng.standard_normal((2, 2, 5, 2)).astype(np.float32)
    keys = np.array([[True, True, False, True, False], [True, True, True, True, True]])[:, None, None, :]
    queries = np.array([[True, False, True], [True, True, True]])[:, None, :, None]
    for what, mask in (("of the keys", keys), ("of the queries (query 1 of sequence 0 sees no key)", queries)):
        with np.errstate(all="ignore"):
            out, weights = scaled_dot_product_attention(q, k, v, mask)
        expected_out, expected_weights = by_hand(q, k, v, mask)
        expect_close(weights, expected_weights, f"the float32 weights with a mask {what}", q)
        expect_close(out, expected_out, f"the float32 output with a mask {what}", q)


def test_self_attention_of_heads_and_large_inputs():
    """self_attention: x with batch and head axes (2, 2, T, d_model), causal, and inputs near ±100 (scores near ±1e4) give finite, right outputs"""
    rng = np.random.default_rng(9)
    w_q, w_k, w_v = rng.standard_normal((3, 2)), rng.standard_normal((3, 2)), rng.standard_normal((3, 4))
    for scale in (1.0, 100.0):
        x = rng.standard_normal((2, 2, 4, 3)) * scale
        out, weights = self_attention(x, w_q, w_k, w_v, causal=True)
        expected_out, expected_weights = by_hand(x @ w_q, x @ w_k, x @ w_v, np.tril(np.ones((4, 4), dtype=bool)))
        expect_close(weights, expected_weights, f"causal self-attention's weights, inputs of about ±{scale:g}", x)
        expect_close(out, expected_out, f"causal self-attention's output, inputs of about ±{scale:g}", x)


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "attention")


def test_q_k_and_v_are_left_as_they_were():
    """scaled_dot_product_attention: q, k and v are unchanged after the call"""
    q, k, v = np.array([[1.0, 2.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[3.0], [5.0]])
    given = (q.copy(), k.copy(), v.copy())
    scaled_dot_product_attention(q, k, v)
    expect_unchanged("scaled_dot_product_attention", ("q", "k", "v"), given, (q, k, v))
