"""Public tests for scores.py."""

import numpy as np
from scores import attention_scores


def test_shape_drill():
    """attention_scores: T = 4 queries and keys of width d_k = 4 give a (4, 4) matrix, 16 entries"""
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    assert attention_scores(q, k).shape == (4, 4)


def test_different_lengths():
    """attention_scores: Q (5 × 16) against K (7 × 16) gives (5 × 7)"""
    q, k = np.ones((5, 16)), np.ones((7, 16))
    out = attention_scores(q, k)
    assert out.shape == (5, 7), f"expected (5, 7) = (L_q, L_k), got {out.shape}"
    np.testing.assert_allclose(out, 4.0, err_msg="every q·k is 16 and √16 = 4, so every score should be 4")


def test_two_tokens():
    """attention_scores: the two-token example, [[1.04, 0.48], [0.48, 0.90]] / √2"""
    x = np.array([[1.00, 0.20], [0.30, 0.90]])
    np.testing.assert_allclose(attention_scores(x, x), np.array([[1.04, 0.48], [0.48, 0.90]]) / np.sqrt(2))
