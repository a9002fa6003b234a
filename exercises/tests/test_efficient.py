"""Public tests for efficient.py."""

import numpy as np
from efficient import grouped_query_attention, kv_cache_step, online_softmax_attention

from attnlab.check.probe_book import probe_tests


def plain_attention(q, k, v, causal=False):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape[-2:], dtype=bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v


def test_online_softmax_blocks():
    """online_softmax_attention: blocks of 2 keys give plain attention's output"""
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 2))
    np.testing.assert_allclose(online_softmax_attention(q, k, v, block_size=2), plain_attention(q, k, v))


def test_gqa_shapes():
    """grouped_query_attention: 8 query heads sharing 2 key/value heads"""
    rng = np.random.default_rng(0)
    out, weights = grouped_query_attention(rng.standard_normal((1, 8, 3, 4)), rng.standard_normal((1, 2, 3, 4)), rng.standard_normal((1, 2, 3, 4)))
    assert out.shape == (1, 8, 3, 4) and weights.shape == (1, 8, 3, 3)


def test_kv_cache_steps():
    """kv_cache_step: three steps equal causal attention over the three tokens"""
    rng = np.random.default_rng(0)
    x, (w_q, w_k, w_v) = rng.standard_normal((1, 3, 4)), rng.standard_normal((3, 4, 4))
    cache, outputs = None, []
    for t in range(3):
        out, cache = kv_cache_step(x[:, t : t + 1], cache, w_q, w_k, w_v)
        outputs.append(out)
    assert cache["k"].shape == (1, 3, 4)
    np.testing.assert_allclose(np.concatenate(outputs, axis=1), plain_attention(x @ w_q, x @ w_k, x @ w_v, causal=True))


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "efficient")
