"""Public tests for decoding.py: the mask's corner, a cache fed in chunks and from outside, RoPE at
the true position (theta of 10 and 10000), scores near ±1e4, and StreamingLLM's eviction."""

import numpy as np
from decoding import bottom_right_causal_mask, cached_rope_attention, evict_to_sinks_and_window

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_finite, expect_shape


def rotated(x, positions, theta):
    """RoPE written out, the oracle's own: pair (2i, 2i+1) at position p turns by p * theta^(-2i/d)."""
    out = np.empty_like(x)
    d = x.shape[-1]
    for index, p in enumerate(positions):
        for i in range(d // 2):
            angle = p * theta ** (-2 * i / d)
            a, b = x[..., index, 2 * i], x[..., index, 2 * i + 1]
            out[..., index, 2 * i] = a * np.cos(angle) - b * np.sin(angle)
            out[..., index, 2 * i + 1] = a * np.sin(angle) + b * np.cos(angle)
    return out


def causal_rope_attention(x, w_q, w_k, w_v, theta):
    """The oracle: every token of x attends to itself and the tokens before it, RoPE at 0..T-1.
    -> (out (B, T, d_v), rotated keys (B, T, d_k), values (B, T, d_v))."""
    positions = range(x.shape[1])
    q, k, v = rotated(x @ w_q, positions, theta), rotated(x @ w_k, positions, theta), x @ w_v
    out = np.zeros(x.shape[:2] + (v.shape[-1],))
    for i in positions:
        scores = np.einsum("bd,bjd->bj", q[:, i], k[:, : i + 1]) / np.sqrt(q.shape[-1])
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        out[:, i] = np.einsum("bj,bjd->bd", weights, v[:, : i + 1])
    return out, k, v


def inputs(batch, n, d_model, d_k, d_v, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    weights = rng.standard_normal((d_model, d_k)) * scale, rng.standard_normal((d_model, d_k)) * scale, rng.standard_normal((d_model, d_v))
    return rng.standard_normal((batch, n, d_model)), *weights


def in_chunks(x, sizes, w_q, w_k, w_v, theta=10000.0):
    """cached_rope_attention over x, chunk after chunk: (outputs (B, T, d_v), the last cache)."""
    cache, outputs, start = None, [], 0
    for size in sizes:
        out, cache = cached_rope_attention(x[:, start : start + size], cache, w_q, w_k, w_v, theta=theta)
        expect_shape(out, (x.shape[0], size, w_v.shape[1]), f"the output for tokens {start}..{start + size - 1}", "(B, n, d_v)")
        outputs.append(out)
        start += size
    return np.concatenate(outputs, axis=1), cache


# ---------------------------------------------------------------- the mask's corner


def test_mask_worked_example():
    """bottom_right_causal_mask: 2 new queries over 4 keys see keys 0..2 and 0..3"""
    expected = np.array([[True, True, True, False], [True, True, True, True]])
    got = bottom_right_causal_mask(2, 4)
    expect_shape(got, (2, 4), "bottom_right_causal_mask(2, 4)", "(n_queries, n_keys)")
    assert got.dtype == np.bool_ and np.array_equal(got, expected), f"bottom_right_causal_mask(2, 4) should be\n{expected}\ngot\n{got}"


def test_mask_square_and_one_query():
    """bottom_right_causal_mask: (5, 5) is the causal mask; (1, 5), a decode step, sees every key"""
    assert np.array_equal(bottom_right_causal_mask(5, 5), np.tril(np.ones((5, 5), dtype=bool))), "bottom_right_causal_mask(5, 5) should be the causal mask"
    assert np.array_equal(bottom_right_causal_mask(1, 5), np.ones((1, 5), dtype=bool)), "bottom_right_causal_mask(1, 5) should be all True"


# ---------------------------------------------------------------- RoPE at the true position, over a cache


def test_one_call_is_causal_rope_attention():
    """cached_rope_attention: without a cache, one call on 4 tokens (theta = 10) is causal attention with RoPE at 0..3, and its cache holds the rotated keys"""
    x, w_q, w_k, w_v = inputs(2, 4, 3, 4, 2, seed=1)
    out, cache = cached_rope_attention(x, None, w_q, w_k, w_v, theta=10.0)
    expected, keys, values = causal_rope_attention(x, w_q, w_k, w_v, 10.0)
    expect_close(out, expected, "cached_rope_attention(x, None, ..., theta=10)", x)
    expect_close(cache["k"], keys, "its cache's keys (rotated at positions 0..3)", x)
    expect_close(cache["v"], values, "its cache's values", x)


def test_chunks_equal_one_call():
    """cached_rope_attention: 6 tokens as chunks of 2, 1 and 3 give the outputs and the cache of one call"""
    x, w_q, w_k, w_v = inputs(2, 6, 5, 4, 3, seed=2)
    got, cache = in_chunks(x, [2, 1, 3], w_q, w_k, w_v)
    expected, keys, _ = causal_rope_attention(x, w_q, w_k, w_v, 10000.0)
    expect_close(got, expected, "the outputs of chunks of 2, 1 and 3", x)
    expect_close(cache["k"], keys, "the cache's keys after the three chunks", x)


def test_one_token_at_a_time():
    """cached_rope_attention: decoding 5 tokens one at a time (theta = 10) equals one call"""
    x, w_q, w_k, w_v = inputs(1, 5, 3, 2, 2, seed=3)
    got, _ = in_chunks(x, [1] * 5, w_q, w_k, w_v, theta=10.0)
    expect_close(got, causal_rope_attention(x, w_q, w_k, w_v, 10.0)[0], "the outputs of 5 decode steps", x)


def test_continues_a_cache_it_did_not_build():
    """cached_rope_attention: 2 new tokens after a cache of 3 rotated keys made elsewhere: positions 3 and 4, and the new cache holds all 5"""
    x, w_q, w_k, w_v = inputs(2, 5, 4, 6, 3, seed=4)
    expected, keys, values = causal_rope_attention(x, w_q, w_k, w_v, 10.0)
    cache = {"k": keys[:, :3].copy(), "v": values[:, :3].copy()}
    out, new_cache = cached_rope_attention(x[:, 3:], cache, w_q, w_k, w_v, theta=10.0)
    expect_close(out, expected[:, 3:], "the outputs of tokens 3 and 4 after the cache of 3", x)
    expect_close(new_cache["k"], keys, "the new cache's keys", x)
    expect_close(new_cache["v"], values, "the new cache's values", x)
    expect_close(cache["k"], keys[:, :3], "the cache passed in, after the call (it is left unchanged)", x)


def test_large_scores():
    """cached_rope_attention: scores near ±1e4, a chunk of 3 after a cache of 2: finite and right"""
    x, w_q, w_k, w_v = inputs(2, 5, 3, 4, 2, seed=5, scale=50.0)
    got, _ = in_chunks(x, [2, 3], w_q, w_k, w_v)
    expect_finite(got, "the outputs with scores near ±1e4")
    expect_close(got, causal_rope_attention(x, w_q, w_k, w_v, 10000.0)[0], "the outputs with scores near ±1e4", x)


# ---------------------------------------------------------------- StreamingLLM: sinks and a window


def numbered_cache(t):
    """A cache whose token j has key [j, -j] and value [10 j]: what was kept can be read off it."""
    j = np.arange(t, dtype=float)
    return {"k": np.stack([j, -j], axis=-1)[None], "v": (10 * j)[None, :, None]}


def test_evict_worked_example():
    """evict_to_sinks_and_window: 8 tokens, 1 sink and a window of 3 keep tokens 0, 5, 6 and 7"""
    cache, whole = numbered_cache(8), numbered_cache(8)
    kept = evict_to_sinks_and_window(cache, 1, 3)
    expect_close(cache["v"][0, :, 0], 10 * np.arange(8.0), "the cache passed in, after the call (it is left unchanged)")
    expect_close(kept["v"][0, :, 0], [0.0, 50.0, 60.0, 70.0], "the values kept (10 × the token's number)")
    expect_close(kept["k"], whole["k"][:, [0, 5, 6, 7]], "the keys kept")


def test_evict_short_cache_and_no_sinks():
    """evict_to_sinks_and_window: 4 tokens with 2 sinks and a window of 3 are kept whole, each once, as are 2 or 3 tokens under a longer window or behind 3 sinks; with no sinks, the last window"""
    kept = evict_to_sinks_and_window(numbered_cache(4), 2, 3)
    expect_close(kept["v"][0, :, 0], [0.0, 10.0, 20.0, 30.0], "the values kept of a cache of 4 (2 sinks, a window of 3)")
    kept = evict_to_sinks_and_window(numbered_cache(6), 0, 2)
    expect_close(kept["v"][0, :, 0], [40.0, 50.0], "the values kept of a cache of 6 (no sinks, a window of 2)")
    kept = evict_to_sinks_and_window(numbered_cache(2), 1, 4)
    expect_close(kept["v"][0, :, 0], [0.0, 10.0], "the values kept of a cache of 2, shorter than the window of 4")
    kept = evict_to_sinks_and_window(numbered_cache(3), 0, 5)
    expect_close(kept["v"][0, :, 0], [0.0, 10.0, 20.0], "the values kept of a cache of 3, no sinks, a window of 5")
    kept = evict_to_sinks_and_window(numbered_cache(2), 3, 1)
    expect_close(kept["v"][0, :, 0], [0.0, 10.0], "the values kept of a cache of 2, shorter than the 3 sinks")


def test_evict_batched():
    """evict_to_sinks_and_window: a batch of 2, keys d_k = 3 and values d_v = 2, 7 tokens, 2 sinks, a window of 2"""
    rng = np.random.default_rng(6)
    cache = {"k": rng.standard_normal((2, 7, 3)), "v": rng.standard_normal((2, 7, 2))}
    kept = evict_to_sinks_and_window(cache, 2, 2)
    expect_close(kept["k"], cache["k"][:, [0, 1, 5, 6]], "the keys kept", cache["k"])
    expect_close(kept["v"], cache["v"][:, [0, 1, 5, 6]], "the values kept", cache["v"])


test_diagnostic_probes = probe_tests(__file__, "decoding")
