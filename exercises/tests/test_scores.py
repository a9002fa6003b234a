"""Public tests for scores.py."""

import numpy as np
from scores import attention_scores

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_shape


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


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "scores")
