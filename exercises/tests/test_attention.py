"""Public tests for attention.py, on the lessons' worked examples."""

import numpy as np
from attention import cross_attention, scaled_dot_product_attention, self_attention

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_rows_sum_to_one, expect_shape, expect_zero_where


def test_one_query_three_keys():
    """scaled_dot_product_attention: one query, three keys; ties blend: output ≈ [6.335, 3.665]"""
    q = np.array([[1.0, 0.0]]) * np.sqrt(2)  # cancels the 1/√2 scale, so the scores are (1, 0, 1)
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    v = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
    out, weights = scaled_dot_product_attention(q, k, v)
    e = np.e
    expect_close(weights, np.array([[e, 1, e]]) / (2 * e + 1), "the weights (they should be (e, 1, e) / (2e + 1))")
    expect_close(out, [[6.335, 3.665]], "the output", atol=5e-4)


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


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "attention")
