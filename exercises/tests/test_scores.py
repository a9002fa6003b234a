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


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "scores")


def test_softcap_leaves_the_scores_as_they_were():
    """softcap: the scores it is given are unchanged after the call"""
    scores = np.array([[60.0, -5.0], [0.0, 100.0]])
    given = scores.copy()
    softcap(scores, 50.0)
    expect_unchanged("softcap", ("scores",), (given,), (scores,))
