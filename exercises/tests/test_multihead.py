"""Public tests for multihead.py."""

import numpy as np
from multihead import merge_heads, multi_head_attention, split_heads

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_shape, expect_zero_where


def test_split_heads():
    """split_heads: (2, 3, 8) with 4 heads gives (2, 4, 3, 2); head 1 holds columns 2:4"""
    x = np.arange(2 * 3 * 8, dtype=float).reshape(2, 3, 8)
    heads = split_heads(x, 4)
    expect_shape(heads, (2, 4, 3, 2), "split_heads(x, 4)", "(B, n_heads, T, d_head)")
    expect_close(heads[:, 1], x[:, :, 2:4], "head 1 (it should hold feature columns 2:4 of every token)")


def test_merge_heads_round_trip():
    """merge_heads: merge_heads(split_heads(x)) gives x back"""
    x = np.random.default_rng(0).standard_normal((2, 5, 6))
    expect_close(merge_heads(split_heads(x, 3)), x, "merge_heads(split_heads(x))", passport="(B, T, d_model)")


def test_mha_shapes():
    """multi_head_attention: 2 heads over (B, T, d_model) = (2, 5, 8)"""
    rng = np.random.default_rng(0)
    out, weights = multi_head_attention(rng.standard_normal((2, 5, 8)), *rng.standard_normal((4, 8, 8)), n_heads=2, causal=True)
    expect_shape(out, (2, 5, 8), "the output", "(B, T, d_model)")
    expect_shape(weights, (2, 2, 5, 5), "the weights", "(B, n_heads, T, T)")
    expect_zero_where(weights, np.triu(np.ones((5, 5), dtype=bool), k=1), "causal weights (no weight above the diagonal)")


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "multihead")
