"""Public tests for scores.py."""

import numpy as np
from scores import additive_scores, attention_scores, cosine_scores, qk_norm_scores, softcap

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_shape, expect_unchanged


def test_shape_drill():
    """attention_scores: T = 4 queries and keys of width d_k = 4 give a (4, 4) matrix, 16 entries"""
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    expect_shape(attention_scores(q, k), (4, 4), "attention_scores(q, k)", "(T, T)")


def test_different_lengths():
    """attention_scores: Q (5 × 16) against K (7 × 16) gives (5 × 7)"""
    q, k = np.ones((5, 16)), np.ones((7, 16))
    out = attention_scores(q, k)
    expect_shape(out, (5, 7), "attention_scores(q, k)", "(L_q, L_k)")
    expect_close(out, np.full((5, 7), 4.0), "attention_scores(q, k) (every q·k is 16 and √16 = 4, so every score is 4)")


def test_two_tokens():
    """attention_scores: the two-token example, [[1.04, 0.48], [0.48, 0.90]] / √2"""
    x = np.array([[1.00, 0.20], [0.30, 0.90]])
    expect_close(attention_scores(x, x), np.array([[1.04, 0.48], [0.48, 0.90]]) / np.sqrt(2), "attention_scores(x, x)")


def test_leading_axes_are_a_batch():
    """attention_scores: a batch of (2, 3) heads gives each one's own q kᵀ / √d_k, d_k = 2"""
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal((2, 3, 4, 2)), rng.standard_normal((2, 3, 5, 2))
    out = attention_scores(q, k)
    expect_shape(out, (2, 3, 4, 5), "attention_scores(q, k)", "(B, h, L_q, L_k)")
    expect_close(out[1, 2], q[1, 2] @ k[1, 2].T / np.sqrt(2), "batch 1, head 2 (q kᵀ / √2 of that pair alone)")


def test_cosine_of_the_lesson():
    """cosine_scores: q = [1, 0] against keys [2, 0], [0, 3], [1, 1]: cosines 1, 0, 1/√2, over a temperature of 0.5"""
    q = np.array([[1.0, 0.0]])
    k = np.array([[2.0, 0.0], [0.0, 3.0], [1.0, 1.0]])
    expect_close(cosine_scores(q, k, 0.5), np.array([[2.0, 0.0, np.sqrt(2)]]), "cosine_scores(q, k, temperature=0.5)", q, k)


def test_cosine_of_a_zero_key():
    """cosine_scores: a zero key scores 0 (its norm is floored at 1e-8), not nan"""
    q, k = np.array([[3.0, 4.0]]), np.array([[0.0, 0.0], [3.0, 4.0]])
    expect_close(cosine_scores(q, k, 1.0), np.array([[0.0, 1.0]]), "cosine_scores(q, k, 1.0) with a zero key", q, k)


def test_qk_norm_makes_a_dot_product_a_cosine():
    """qk_norm_scores: with unit gains and eps = 0, the score is d · cos / √d = √d · cos, whatever the lengths"""
    q = np.array([[10.0, 0.0, 0.0, 0.0]])
    k = np.array([[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 7.0, 0.0]])
    ones = np.ones(4)
    expect_close(qk_norm_scores(q, k, ones, ones, eps=0.0), np.array([[2.0 / np.sqrt(2), 0.0]]), "qk_norm_scores(q, k, 1, 1, eps=0)", q, k)


def test_qk_norm_gains():
    """qk_norm_scores: the gains multiply the normalised features; rms([3, 4]) = √12.5"""
    q, k = np.array([[3.0, 4.0]]), np.array([[1.0, 1.0]])
    gain_q, gain_k = np.array([2.0, 0.0]), np.array([1.0, 1.0])
    expected = (3 / np.sqrt(12.5 + 1e-6)) * 2.0 * (1 / np.sqrt(1 + 1e-6)) / np.sqrt(2)
    expect_close(qk_norm_scores(q, k, gain_q, gain_k), np.array([[expected]]), "qk_norm_scores(q, k, gain_q, gain_k)", q, k)


def test_softcap_of_gemma_2():
    """softcap: Gemma 2's cap of 50 leaves a score of 1 almost unchanged and takes 1000 to just under 50"""
    scores = np.array([-1000.0, -50.0, 1.0, 50.0, 1000.0])
    expect_close(softcap(scores, 50.0), 50.0 * np.tanh(scores / 50.0), "softcap(scores, 50)", scores)
    expect_close(softcap(scores, 50.0)[[2, 4]], np.array([0.9998666879965465, 50.0]), "softcap of 1 and 1000 with cap 50", scores)


def test_additive_scores_by_hand():
    """additive_scores: two queries, three keys, d_a = 2: score[i, j] = v · tanh(q_i W_q + k_j W_k)"""
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    k = np.array([[1.0], [0.0], [-1.0]])
    w_q, w_k, v = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, -1.0]]), np.array([1.0, 2.0])
    expected = np.array([[v @ np.tanh(q[i] @ w_q + k[j] @ w_k) for j in range(3)] for i in range(2)])
    out = additive_scores(q, k, w_q, w_k, v)
    expect_shape(out, (2, 3), "additive_scores(q, k, w_q, w_k, v)", "(L_q, L_k)")
    expect_close(out, expected, "additive_scores(q, k, w_q, w_k, v)", q, k)


def unit(x):
    """Rows of x divided by their length (at least 1e-8)."""
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-8)


def rms(x, gain, eps):
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps) * gain


def test_float32_batches_and_heads():
    """attention_scores: float32 inputs with batch and head axes (2, 2, L, d), at float32's precision"""
    rng = np.random.default_rng(40)
    q, k = rng.standard_normal((2, 2, 3, 4)).astype(np.float32), rng.standard_normal((2, 2, 5, 4)).astype(np.float32)
    expect_close(attention_scores(q, k), q @ np.swapaxes(k, -1, -2) / 2.0, "attention_scores of float32 (2, 2, L, 4) arrays", q)


def test_cosine_scores_in_float32_with_heads():
    """cosine_scores: float32 (2, 2, L, d) inputs, and vectors a hundred times longer give the same scores"""
    rng = np.random.default_rng(41)
    q, k = rng.standard_normal((2, 2, 3, 4)).astype(np.float32), rng.standard_normal((2, 2, 5, 4)).astype(np.float32)
    expected = unit(q.astype(np.float64)) @ np.swapaxes(unit(k.astype(np.float64)), -1, -2) / 0.5
    expect_close(cosine_scores(q, k, 0.5), expected, "cosine_scores of float32 (2, 2, L, 4) arrays", q)
    expect_close(cosine_scores(100.0 * q.astype(np.float64), 300.0 * k.astype(np.float64), 0.5), expected, "cosine_scores of vectors 100 and 300 times longer", q)


def test_qk_norm_in_float32_with_heads_and_large_inputs():
    """qk_norm_scores: float32 (2, 2, L, d) inputs, a batch (2, L, d) with eps = 0.1, and inputs a hundred times larger give bounded scores"""
    rng = np.random.default_rng(42)
    gq, gk = rng.standard_normal(4), rng.standard_normal(4)
    q, k = rng.standard_normal((2, 2, 3, 4)).astype(np.float32), rng.standard_normal((2, 2, 5, 4)).astype(np.float32)
    expected = rms(q.astype(np.float64), gq, 1e-6) @ np.swapaxes(rms(k.astype(np.float64), gk, 1e-6), -1, -2) / 2.0
    expect_close(qk_norm_scores(q, k, gq, gk), expected, "qk_norm_scores of float32 (2, 2, L, 4) arrays", q)
    q3, k3 = rng.standard_normal((2, 3, 4)) * 100.0, rng.standard_normal((2, 5, 4)) * 100.0
    expected = rms(q3, gq, 0.1) @ np.swapaxes(rms(k3, gk, 0.1), -1, -2) / 2.0
    expect_close(qk_norm_scores(q3, k3, gq, gk, eps=0.1), expected, "qk_norm_scores of (2, L, 4) inputs near ±100, eps = 0.1", q3)


def test_softcap_in_float32_with_heads():
    """softcap: float32 scores of shape (2, 2, 3, 4) and (2, 3, 4) are cap · tanh(scores / cap)"""
    rng = np.random.default_rng(43)
    for shape in ((2, 3, 4), (2, 2, 3, 4)):
        scores = (rng.standard_normal(shape) * 40.0).astype(np.float32)
        expect_close(softcap(scores, 30.0), 30.0 * np.tanh(scores.astype(np.float64) / 30.0), f"softcap of float32 scores {shape}, cap 30", scores)


def test_additive_scores_in_float32_with_heads():
    """additive_scores: float32 queries and keys of shape (2, 2, L, d) and (2, L, d): v · tanh(q W_q + k W_k) for every pair"""
    rng = np.random.default_rng(44)
    w_q, w_k, v = rng.standard_normal((3, 5)), rng.standard_normal((4, 5)), rng.standard_normal(5)
    for lead in ((2,), (2, 2)):
        q, k = rng.standard_normal(lead + (3, 3)).astype(np.float32), rng.standard_normal(lead + (2, 4)).astype(np.float32)
        expected = np.tanh((q.astype(np.float64) @ w_q)[..., :, None, :] + (k.astype(np.float64) @ w_k)[..., None, :, :]) @ v
        expect_close(additive_scores(q, k, w_q, w_k, v), expected, f"additive_scores of float32 {lead + (3, 3)} queries", q)


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "scores")


def test_softcap_leaves_the_scores_as_they_were():
    """softcap: the scores it is given are unchanged after the call"""
    scores = np.array([[60.0, -5.0], [0.0, 100.0]])
    given = scores.copy()
    softcap(scores, 50.0)
    expect_unchanged("softcap", ("scores",), (given,), (scores,))
