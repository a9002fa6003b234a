"""Public tests for latent_attention.py: MLA against attention written out head by head, causal or
not, scores near ±1e4, decode steps from nothing and from a cache made elsewhere, and the memory
the absorbed step may hold; the same for MLA with DeepSeek-V2's decoupled RoPE key."""

import tracemalloc

import numpy as np
from latent_attention import mla_attention, mla_decode_step, mla_rope_attention, mla_rope_decode_step

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_finite, expect_shape


def heads_written_out(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    """The oracle: for each head, its column slice of Q = x W_Q, K = c W_UK and V = c W_UV, attention
    scaled by 1/√d_head, one query at a time; the heads side by side."""
    latent = x @ w_dkv
    d_head = w_q.shape[1] // n_heads
    out = np.zeros(x.shape[:2] + (w_q.shape[1],))
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        q, k, v = x @ w_q[:, cols], latent @ w_uk[:, cols], latent @ w_uv[:, cols]
        for i in range(x.shape[1]):
            keys = slice(0, i + 1) if causal else slice(None)
            scores = np.einsum("bd,bjd->bj", q[:, i], k[:, keys]) / np.sqrt(d_head)
            weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
            weights /= weights.sum(axis=-1, keepdims=True)
            out[:, i, cols] = np.einsum("bj,bjd->bd", weights, v[:, keys])
    return out, latent


def inputs(batch, t, d_model, d_c, n_heads, d_head, seed, scale=1.0):
    """x and the weights (w_dkv, w_uk, w_uv, w_q); ``scale`` multiplies the query and key weights."""
    rng = np.random.default_rng(seed)
    width = n_heads * d_head
    return (
        rng.standard_normal((batch, t, d_model)),
        rng.standard_normal((d_model, d_c)),
        rng.standard_normal((d_c, width)) * scale,
        rng.standard_normal((d_c, width)),
        rng.standard_normal((d_model, width)) * scale,
    )


# ---------------------------------------------------------------- MLA over a sequence


def test_mla_causal():
    """mla_attention: 2 sequences of 4 tokens, 2 heads of width 3, a latent of width 2, causal: the heads written out, and the latents"""
    x, *weights = inputs(2, 4, 5, 2, 2, 3, seed=1)
    out, latent = mla_attention(x, *weights, 2)
    expect_shape(out, (2, 4, 6), "mla_attention's output", "(B, T, n_heads * d_head)")
    expected, latents = heads_written_out(x, *weights, 2)
    expect_close(out, expected, "mla_attention(x, ..., n_heads=2)", x)
    expect_close(latent, latents, "the latent mla_attention returns (x @ w_dkv)", x)


def test_mla_not_causal_one_head():
    """mla_attention: causal=False, one head of width 4, a latent of width 3"""
    x, *weights = inputs(1, 3, 2, 3, 1, 4, seed=2)
    out, _ = mla_attention(x, *weights, 1, causal=False)
    expect_close(out, heads_written_out(x, *weights, 1, causal=False)[0], "mla_attention(causal=False)", x)


def test_mla_large_scores():
    """mla_attention: query and key weights × 50 (scores near ±1e4), 3 heads: finite and right"""
    x, *weights = inputs(2, 3, 4, 2, 3, 2, seed=3, scale=50.0)
    out, _ = mla_attention(x, *weights, 3)
    expect_finite(out, "mla_attention with scores near ±1e4")
    expect_close(out, heads_written_out(x, *weights, 3)[0], "mla_attention with scores near ±1e4", x)


# ---------------------------------------------------------------- the decode step, W_UK absorbed


def test_decode_steps_equal_mla():
    """mla_decode_step: 5 steps from no cache, 2 heads of width 2, d_c = 3: the outputs of causal MLA, and a cache of the 5 latents"""
    x, *weights = inputs(2, 5, 4, 3, 2, 2, seed=4)
    cache, outputs = None, []
    for t in range(5):
        out_t, cache = mla_decode_step(x[:, t : t + 1], cache, *weights, 2)
        expect_shape(out_t, (2, 1, 4), f"mla_decode_step's output at step {t}", "(B, 1, n_heads * d_head)")
        outputs.append(out_t)
    expected, latents = heads_written_out(x, *weights, 2)
    expect_close(np.concatenate(outputs, axis=1), expected, "mla_decode_step's outputs over 5 steps", x)
    expect_close(cache, latents, "the cache after 5 steps", x)


def test_decode_from_a_cache_made_elsewhere():
    """mla_decode_step: one token after 4 latents it did not compute, 3 heads of width 2, d_c = 5; the cache passed in is left unchanged"""
    rng = np.random.default_rng(5)
    x_t, *weights = inputs(1, 1, 3, 5, 3, 2, seed=6)
    cache = rng.standard_normal((1, 4, 5))
    kept = cache.copy()
    out, new_cache = mla_decode_step(x_t, cache, *weights, 3)
    w_dkv, w_uk, w_uv, w_q = weights
    whole = np.concatenate([cache, x_t @ w_dkv], axis=1)  # (1, 5, 5)
    d_head, expected = 2, np.zeros((1, 1, 6))
    for h in range(3):
        cols = slice(h * d_head, (h + 1) * d_head)
        scores = (x_t[0, 0] @ w_q[:, cols]) @ (whole[0] @ w_uk[:, cols]).T / np.sqrt(d_head)
        weights_h = np.exp(scores - scores.max())
        expected[0, 0, cols] = (weights_h / weights_h.sum()) @ (whole[0] @ w_uv[:, cols])
    expect_close(out, expected, "mla_decode_step after 4 latents", x_t)
    expect_close(new_cache, whole, "the new cache (the 4 latents, then the new one)", x_t)
    expect_close(cache, kept, "the cache passed in, after the call (it is left unchanged)", x_t)


def test_decode_large_scores():
    """mla_decode_step: query and key weights × 50 (scores near ±1e4), after 3 cached latents: finite and right"""
    x, *weights = inputs(2, 4, 3, 2, 2, 2, seed=7, scale=50.0)
    _, latents = heads_written_out(x, *weights, 2)
    out, _ = mla_decode_step(x[:, 3:], latents[:, :3], *weights, 2)
    expect_finite(out, "mla_decode_step with scores near ±1e4")
    expect_close(out, heads_written_out(x, *weights, 2)[0][:, 3:], "mla_decode_step with scores near ±1e4", x)


def test_decode_never_holds_the_keys():
    """mla_decode_step: over 16384 cached latents of width 16, 8 heads of width 32, it holds far less than every head's keys (32 MiB)"""
    rng = np.random.default_rng(8)
    cache = rng.standard_normal((1, 1 << 14, 16))
    x_t, w_dkv, w_uk, w_uv, w_q = inputs(1, 1, 32, 16, 8, 32, seed=9, scale=0.3)
    tracemalloc.start()
    try:
        out, _ = mla_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, 8)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    expect_shape(out, (1, 1, 256), "mla_decode_step's output", "(B, 1, n_heads * d_head)")
    assert peak < 12 << 20, (
        f"mla_decode_step held {peak / 2**20:.1f} MiB over 16384 cached latents; every head's keys are 32 MiB: absorb W_UK "
        "into the query and score the latents directly, and apply W_UV to the weighted latent"
    )


# ---------------------------------------------------------------- decoupled RoPE


def turned(x, position):
    """RoPE of one vector x (d,) at an integer position, pair by pair: (x[2i], x[2i+1]) turned by
    position · 10000^(-2i/d)."""
    out = np.empty_like(x)
    for i in range(x.shape[-1] // 2):
        angle = position * 10000.0 ** (-2 * i / x.shape[-1])
        c, s = np.cos(angle), np.sin(angle)
        out[2 * i], out[2 * i + 1] = x[2 * i] * c - x[2 * i + 1] * s, x[2 * i] * s + x[2 * i + 1] * c
    return out


def rope_heads_written_out(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    """The oracle: each query and key turned one at a time; head h's score of key j is its content
    part q·k plus its RoPE part against token j's one RoPE key, over √(d_head + d_rope)."""
    latent = x @ w_dkv
    d_head, d_rope = w_q.shape[1] // n_heads, w_kr.shape[1]
    batch, t = x.shape[:2]
    rope_keys = np.array([[turned(x[b, j] @ w_kr, j) for j in range(t)] for b in range(batch)])
    out = np.zeros((batch, t, w_q.shape[1]))
    for h in range(n_heads):
        cols, rope_cols = slice(h * d_head, (h + 1) * d_head), slice(h * d_rope, (h + 1) * d_rope)
        k, v = latent @ w_uk[:, cols], latent @ w_uv[:, cols]
        for b in range(batch):
            for i in range(t):
                keys = i + 1 if causal else t
                q, q_rope = x[b, i] @ w_q[:, cols], turned(x[b, i] @ w_qr[:, rope_cols], i)
                scores = (k[b, :keys] @ q + rope_keys[b, :keys] @ q_rope) / np.sqrt(d_head + d_rope)
                weights = np.exp(scores - scores.max())
                out[b, i, cols] = (weights / weights.sum()) @ v[b, :keys]
    return out, (latent, rope_keys)


def rope_inputs(batch, t, d_model, d_c, n_heads, d_head, d_rope, seed, scale=1.0):
    """x and the weights (w_dkv, w_uk, w_uv, w_q, w_qr, w_kr); ``scale`` multiplies the query and key weights."""
    x, *weights = inputs(batch, t, d_model, d_c, n_heads, d_head, seed, scale)
    rng = np.random.default_rng(seed + 100)
    w_qr = rng.standard_normal((d_model, n_heads * d_rope)) * scale
    w_kr = rng.standard_normal((d_model, d_rope)) * scale
    return x, *weights, w_qr, w_kr


def test_mla_rope_causal():
    """mla_rope_attention: 2 sequences of 5 tokens, 2 heads of width 3, RoPE parts of width 4, a latent of width 2: the heads written out, and the cache"""
    x, *weights = rope_inputs(2, 5, 5, 2, 2, 3, 4, seed=11)
    out, (latent, rope_keys) = mla_rope_attention(x, *weights, 2)
    expect_shape(out, (2, 5, 6), "mla_rope_attention's output", "(B, T, n_heads * d_head)")
    expected, (latents, keys) = rope_heads_written_out(x, *weights, 2)
    expect_close(out, expected, "mla_rope_attention(x, ..., n_heads=2)", x)
    expect_close(latent, latents, "the latents mla_rope_attention returns (x @ w_dkv)", x)
    expect_close(rope_keys, keys, "the RoPE keys mla_rope_attention returns (x @ w_kr turned at 0..T-1)", x)


def test_mla_rope_not_causal_three_heads():
    """mla_rope_attention: causal=False, 3 heads of width 2, RoPE parts of width 2, a latent of width 3"""
    x, *weights = rope_inputs(1, 4, 3, 3, 3, 2, 2, seed=12)
    out, _ = mla_rope_attention(x, *weights, 3, causal=False)
    expect_close(out, rope_heads_written_out(x, *weights, 3, causal=False)[0], "mla_rope_attention(causal=False)", x)


def test_mla_rope_large_scores():
    """mla_rope_attention: query and key weights × 50 (scores near ±1e4): finite and right"""
    x, *weights = rope_inputs(2, 3, 4, 2, 2, 2, 2, seed=13, scale=50.0)
    out, _ = mla_rope_attention(x, *weights, 2)
    expect_finite(out, "mla_rope_attention with scores near ±1e4")
    expect_close(out, rope_heads_written_out(x, *weights, 2)[0], "mla_rope_attention with scores near ±1e4", x)


def test_rope_decode_steps_equal_mla_rope():
    """mla_rope_decode_step: 5 steps from no cache, 2 heads of width 2, RoPE parts of width 2, d_c = 3: the outputs of causal MLA with RoPE, and a cache of the 5 latents and RoPE keys"""
    x, *weights = rope_inputs(2, 5, 4, 3, 2, 2, 2, seed=14)
    cache, outputs = None, []
    for t in range(5):
        out_t, cache = mla_rope_decode_step(x[:, t : t + 1], cache, *weights, 2)
        expect_shape(out_t, (2, 1, 4), f"mla_rope_decode_step's output at step {t}", "(B, 1, n_heads * d_head)")
        outputs.append(out_t)
    expected, (latents, keys) = rope_heads_written_out(x, *weights, 2)
    expect_close(np.concatenate(outputs, axis=1), expected, "mla_rope_decode_step's outputs over 5 steps", x)
    expect_close(cache[0], latents, "the cache's latents after 5 steps", x)
    expect_close(cache[1], keys, "the cache's RoPE keys after 5 steps (each turned at its own position)", x)


def test_rope_decode_at_the_true_position():
    """mla_rope_decode_step: one token after 3 cached tokens it did not compute is turned at position 3, not 0; the cache passed in is left unchanged"""
    x, *weights = rope_inputs(1, 4, 3, 4, 2, 2, 4, seed=15)
    expected, (latents, keys) = rope_heads_written_out(x, *weights, 2)
    cache = (latents[:, :3], keys[:, :3])
    kept = (cache[0].copy(), cache[1].copy())
    out, (latent, rope_keys) = mla_rope_decode_step(x[:, 3:], cache, *weights, 2)
    expect_close(out, expected[:, 3:], "mla_rope_decode_step after 3 cached tokens", x)
    expect_close(latent, latents, "the new cache's latents (the 3 cached, then the new one)", x)
    expect_close(rope_keys, keys, "the new cache's RoPE keys (the new one turned at position 3)", x)
    expect_close(cache[0], kept[0], "the cached latents passed in, after the call (left unchanged)", x)
    expect_close(cache[1], kept[1], "the cached RoPE keys passed in, after the call (left unchanged)", x)


def test_rope_decode_large_scores():
    """mla_rope_decode_step: query and key weights × 50 (scores near ±1e4), after 3 cached tokens: finite and right"""
    x, *weights = rope_inputs(2, 4, 3, 2, 2, 2, 2, seed=16, scale=50.0)
    expected, (latents, keys) = rope_heads_written_out(x, *weights, 2)
    out, _ = mla_rope_decode_step(x[:, 3:], (latents[:, :3], keys[:, :3]), *weights, 2)
    expect_finite(out, "mla_rope_decode_step with scores near ±1e4")
    expect_close(out, expected[:, 3:], "mla_rope_decode_step with scores near ±1e4", x)


def test_rope_decode_never_holds_the_keys():
    """mla_rope_decode_step: over 16384 cached tokens (latents of width 16, RoPE keys of width 8), 8 heads of width 32, it holds far less than every head's keys (32 MiB)"""
    rng = np.random.default_rng(18)
    cache = (rng.standard_normal((1, 1 << 14, 16)), rng.standard_normal((1, 1 << 14, 8)))
    x_t, *weights = rope_inputs(1, 1, 32, 16, 8, 32, 8, seed=19, scale=0.3)
    tracemalloc.start()
    try:
        out, _ = mla_rope_decode_step(x_t, cache, *weights, 8)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    expect_shape(out, (1, 1, 256), "mla_rope_decode_step's output", "(B, 1, n_heads * d_head)")
    assert peak < 16 << 20, (
        f"mla_rope_decode_step held {peak / 2**20:.1f} MiB over 16384 cached tokens; every head's keys are 32 MiB: absorb W_UK "
        "into the query and score the latents directly, add the RoPE score against the cached RoPE keys, and apply W_UV to the "
        "weighted latent"
    )


test_diagnostic_probes = probe_tests(__file__, "latent_attention")
