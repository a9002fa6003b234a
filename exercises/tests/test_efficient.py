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


def test_online_softmax_when_the_maximum_grows():
    """online_softmax_attention: scores that grow block after block, blocks of 3 over 7 keys (the last block shorter), batched"""
    rng = np.random.default_rng(14)
    q, k, v = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 7, 4)) * np.arange(1, 8)[:, None], rng.standard_normal((2, 7, 2))
    np.testing.assert_allclose(online_softmax_attention(q, k, v, block_size=3), plain_attention(q, k, v), err_msg="the running sums must be rescaled when a block raises the maximum")


def test_online_softmax_causal():
    """online_softmax_attention: causal, blocks of 2 over 5 keys"""
    rng = np.random.default_rng(15)
    q, k, v = rng.standard_normal((5, 3)), rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    np.testing.assert_allclose(online_softmax_attention(q, k, v, block_size=2, causal=True), plain_attention(q, k, v, causal=True))


def test_gqa_values():
    """grouped_query_attention: query head h reads key/value head h // 4 (8 query heads, 2 kv heads), causal"""
    rng = np.random.default_rng(16)
    q, k, v = rng.standard_normal((1, 8, 3, 4)), rng.standard_normal((1, 2, 3, 4)), rng.standard_normal((1, 2, 3, 4))
    out, weights = grouped_query_attention(q, k, v, causal=True)
    for h in range(8):
        np.testing.assert_allclose(out[:, h], plain_attention(q[:, h], k[:, h // 4], v[:, h // 4], causal=True), err_msg=f"query head {h} should read kv head {h // 4}")


def test_kv_cache_leaves_the_cache_it_is_given():
    """kv_cache_step: the cache passed in is not changed; the new one holds the old tokens first"""
    rng = np.random.default_rng(17)
    x_t, (w_q, w_k), w_v = rng.standard_normal((2, 1, 3)), rng.standard_normal((2, 3, 2)), rng.standard_normal((3, 4))
    cache = {"k": rng.standard_normal((2, 2, 2)), "v": rng.standard_normal((2, 2, 4))}
    kept = {name: value.copy() for name, value in cache.items()}
    out, new = kv_cache_step(x_t, cache, w_q, w_k, w_v)
    np.testing.assert_array_equal(cache["k"], kept["k"], err_msg="the cache passed in changed")
    np.testing.assert_allclose(new["k"][:, :2], kept["k"], err_msg="the new cache should start with the old keys")
    np.testing.assert_allclose(out, plain_attention(x_t @ w_q, new["k"], new["v"]), err_msg="the newest query attends to every cached key")


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "efficient")
