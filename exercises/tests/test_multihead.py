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


def test_split_heads_of_one_sequence():
    """split_heads: a (T, d_model) = (3, 6) sequence with 3 heads gives (3, 3, 2): head h holds columns 2h:2h+2"""
    x = np.arange(18.0).reshape(3, 6)
    heads = split_heads(x, 3)
    expect_shape(heads, (3, 3, 2), "split_heads(x, 3)", "(n_heads, T, d_head)")
    for h in range(3):
        expect_close(heads[h], x[:, 2 * h : 2 * h + 2], f"head {h}")


def test_merge_heads_puts_each_tokens_heads_side_by_side():
    """merge_heads: (n_heads, T, d_head) = (2, 3, 2) gives (3, 4): token t's row is head 0's features, then head 1's"""
    x = np.arange(12.0).reshape(2, 3, 2)
    merged = merge_heads(x)
    expect_shape(merged, (3, 4), "merge_heads(x)", "(T, n_heads * d_head)")
    expect_close(merged, np.concatenate([x[0], x[1]], axis=-1), "merge_heads(x)")


def test_one_head_is_plain_attention():
    """multi_head_attention: with one head it is softmax(Q Kᵀ / √d_model) V, projected by w_o"""
    rng = np.random.default_rng(10)
    x, (w_q, w_k, w_v, w_o) = rng.standard_normal((1, 4, 4)), rng.standard_normal((4, 4, 4))
    scores = (x @ w_q) @ np.swapaxes(x @ w_k, -1, -2) / 2.0
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    out, got = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads=1)
    expect_close(got[:, 0], weights, "the weights of the one head")
    expect_close(out, weights @ (x @ w_v) @ w_o, "the output")


def test_mha_ignores_the_future_and_the_padding():
    """multi_head_attention: causal and padded: changing the last token (padding) changes no real token's output"""
    rng = np.random.default_rng(11)
    x, w = rng.standard_normal((2, 4, 6)), rng.standard_normal((4, 6, 6))
    real = np.array([[True, True, True, False], [True, True, True, True]])
    changed = x.copy()
    changed[:, 3] += 10.0
    before, weights = multi_head_attention(x, *w, n_heads=3, causal=True, key_padding_mask=real)
    after, _ = multi_head_attention(changed, *w, n_heads=3, causal=True, key_padding_mask=real)
    expect_shape(weights, (2, 3, 4, 4), "the weights", "(B, n_heads, T, T)")
    expect_close(after[:, :3], before[:, :3], "the outputs at positions 0..2 after token 3 changed")
    expect_zero_where(weights[0], np.broadcast_to(~real[0], (3, 4, 4)), "the weights on sequence 0's padding")


def test_split_heads_with_more_leading_axes():
    """split_heads: (2, 2, 3, 8) with 4 heads gives (2, 2, 4, 3, 2): head h holds feature columns 2h:2h+2"""
    x = np.random.default_rng(12).standard_normal((2, 2, 3, 8)) * 100.0
    heads = split_heads(x, 4)
    expect_shape(heads, (2, 2, 4, 3, 2), "split_heads of a (2, 2, 3, 8) array", "(..., n_heads, T, d_head)")
    for h in range(4):
        expect_close(heads[..., h, :, :], x[..., 2 * h : 2 * h + 2], f"head {h} (feature columns {2 * h}:{2 * h + 2})")


def test_merge_heads_with_more_leading_axes():
    """merge_heads: (2, 2, 4, 3, 2) gives (2, 2, 3, 8): each token's 4 heads side by side"""
    x = np.random.default_rng(14).standard_normal((2, 2, 4, 3, 2))
    merged = merge_heads(x)
    expect_shape(merged, (2, 2, 3, 8), "merge_heads of a (2, 2, 4, 3, 2) array", "(..., T, n_heads * d_head)")
    expect_close(merged, np.concatenate([x[..., h, :, :] for h in range(4)], axis=-1), "merge_heads of (2, 2, 4, 3, 2)")


def test_mha_with_left_padding_and_large_inputs():
    """multi_head_attention: left padding under the causal mask (a query that may see no key gets zero weights and output), and inputs near ±100: finite and equal to each head's attention"""
    rng = np.random.default_rng(13)
    w_q, w_k, w_v, w_o = rng.standard_normal((4, 4, 4))
    real = np.arange(3)[None, :] >= np.array([2, 0])[:, None]  # sequence 0: two padding tokens first
    allowed = np.tril(np.ones((3, 3), dtype=bool)) & real[:, None, None, :]  # (B, 1, T, T)
    for scale in (1.0, 100.0):
        x = rng.standard_normal((2, 3, 4)) * scale
        with np.errstate(all="ignore"):
            out, weights = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads=2, causal=True, key_padding_mask=real)
        q, k, v = ((x @ w).reshape(2, 3, 2, 2).transpose(0, 2, 1, 3) for w in (w_q, w_k, w_v))
        scores = np.where(allowed, q @ np.swapaxes(k, -1, -2) / np.sqrt(2), -np.inf)
        top = scores.max(axis=-1, keepdims=True)
        expected = np.exp(scores - np.where(np.isneginf(top), 0.0, top))
        expected = expected / np.maximum(expected.sum(axis=-1, keepdims=True), 1e-300)
        expect_close(weights, expected, f"the weights on a left-padded batch, inputs of about ±{scale:g} (sequence 0's queries 0 and 1 see no key: zero rows)", x)
        expect_close(out, (expected @ v).transpose(0, 2, 1, 3).reshape(2, 3, 4) @ w_o, f"the output, inputs of about ±{scale:g}", x)


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "multihead")
