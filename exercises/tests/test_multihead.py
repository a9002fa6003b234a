"""Public tests for multihead.py."""

import numpy as np
from multihead import merge_heads, multi_head_attention, split_heads


def test_split_heads():
    """split_heads: (2, 3, 8) with 4 heads gives (2, 4, 3, 2); head 1 holds columns 2:4"""
    x = np.arange(2 * 3 * 8, dtype=float).reshape(2, 3, 8)
    heads = split_heads(x, 4)
    assert heads.shape == (2, 4, 3, 2), f"expected (B, n_heads, T, d_head) = (2, 4, 3, 2), got {heads.shape}"
    np.testing.assert_array_equal(heads[:, 1], x[:, :, 2:4], err_msg="head 1 should hold feature columns 2:4 of every token")


def test_merge_heads_round_trip():
    """merge_heads: merge_heads(split_heads(x)) gives x back"""
    x = np.random.default_rng(0).standard_normal((2, 5, 6))
    np.testing.assert_allclose(merge_heads(split_heads(x, 3)), x)


def test_mha_shapes():
    """multi_head_attention: 2 heads over (B, T, d_model) = (2, 5, 8)"""
    rng = np.random.default_rng(0)
    out, weights = multi_head_attention(rng.standard_normal((2, 5, 8)), *rng.standard_normal((4, 8, 8)), n_heads=2, causal=True)
    assert out.shape == (2, 5, 8), f"output should be (B, T, d_model), got {out.shape}"
    assert weights.shape == (2, 2, 5, 5), f"weights should be (B, n_heads, T, T), got {weights.shape}"
    assert np.allclose(np.triu(weights, k=1), 0), "with causal=True no weight may fall above the diagonal"
