"""Public tests for efficient.py: every argument the hidden tests use (masks of every shape, left
padding, scores near ±1e4, float32, leading axes, the tiles) and the memory the algorithms may hold."""

import tracemalloc

import numpy as np
from efficient import flash_attention, flash_attention_backward, grouped_query_attention, kv_cache_step, online_softmax_attention

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_finite, expect_shape, expect_unchanged


def plain_attention(q, k, v, causal=False, mask=None):
    """Attention written out in full, the oracle: a query that may see no key gets a zero row."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    visible = np.ones(scores.shape[-2:], dtype=bool)
    if causal:
        visible = np.tril(visible)
    if mask is not None:
        visible = visible & mask
    scores, visible = np.broadcast_arrays(scores, visible)
    scores = np.where(visible, scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores - np.where(np.isneginf(top), 0.0, top))
    total = weights.sum(axis=-1, keepdims=True)
    weights = weights / np.where(total > 0, total, 1.0)
    lse = np.where(total > 0, np.where(np.isneginf(top), 0.0, top) + np.log(np.where(total > 0, total, 1.0)), -np.inf)
    return weights @ v, weights, lse[..., 0]


def plain_backward(q, k, v, grad_out, causal=False, mask=None):
    """dq, dk, dv of plain attention, by the chain rule."""
    _, weights, _ = plain_attention(q, k, v, causal, mask)
    grad_weights = grad_out @ np.swapaxes(v, -1, -2)
    grad_scores = weights * (grad_weights - np.sum(grad_weights * weights, axis=-1, keepdims=True)) / np.sqrt(q.shape[-1])
    return grad_scores @ k, np.swapaxes(grad_scores, -1, -2) @ q, np.swapaxes(weights, -1, -2) @ grad_out


def left_padding(lengths, n):
    """(B, n) True at the last lengths[b] positions: sequence b's padding comes first."""
    return np.arange(n)[None, :] >= n - np.asarray(lengths)[:, None]


def peak_of(call):
    """What ``call()`` returns and the most memory it held beyond what existed before (bytes)."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def long_keys(n_q, n_k, seed):
    """q (n_q, 1), k and v (n_k, 1), a mask of the keys (1, n_k): scores that grow along the keys for
    some queries and fall for the others."""
    rng = np.random.default_rng(seed)
    q = np.where(np.arange(n_q) % 2 == 0, 1.0, -1.0)[:, None] * rng.uniform(0.5, 2.0, (n_q, 1))
    k = (np.linspace(-30.0, 30.0, n_k) + rng.standard_normal(n_k))[:, None]
    return q, k, rng.standard_normal((n_k, 1)), rng.random((1, n_k)) > 0.2


# ---------------------------------------------------------------- online softmax


def test_online_softmax_blocks():
    """online_softmax_attention: blocks of 2 keys give plain attention's output"""
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 2))
    expect_close(online_softmax_attention(q, k, v, block_size=2), plain_attention(q, k, v)[0], "online_softmax_attention(block_size=2)", q)


def test_online_softmax_when_the_maximum_grows():
    """online_softmax_attention: scores that grow block after block, blocks of 3 over 7 keys (the last block shorter), batched"""
    rng = np.random.default_rng(14)
    q, k, v = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 7, 4)) * np.arange(1, 8)[:, None], rng.standard_normal((2, 7, 2))
    expect_close(online_softmax_attention(q, k, v, block_size=3), plain_attention(q, k, v)[0], "online_softmax_attention(block_size=3): the running sums must be rescaled when a block raises the maximum", q)


def test_online_softmax_causal():
    """online_softmax_attention: causal, blocks of 2 over 5 keys"""
    rng = np.random.default_rng(15)
    q, k, v = rng.standard_normal((5, 3)), rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    expect_close(online_softmax_attention(q, k, v, block_size=2, causal=True), plain_attention(q, k, v, causal=True)[0], "causal online_softmax_attention(block_size=2)", q)


def test_online_softmax_masks_of_every_shape():
    """online_softmax_attention: batch and heads, a mask (B, h, L_q, L_k), one of the keys (B, 1, 1, L_k) and one of the queries (B, 1, L_q, 1) with causal=True, in float64 and float32"""
    rng = np.random.default_rng(16)
    for dtype in (np.float64, np.float32):
        q, k, v = (rng.standard_normal((2, 2, 4, 3)).astype(dtype) for _ in range(3))
        full = rng.random((2, 2, 4, 4)) < 0.6
        full[..., 0] = True  # every query sees a key
        keys = np.array([[True, False, True, True], [True, True, True, False]])[:, None, None, :]
        queries = np.array([[True, True, False, True], [True, True, True, True]])[:, None, :, None]
        for what, mask, causal in (("(B, h, L_q, L_k)", full, False), ("of the keys", keys, True), ("of the queries", queries, True)):
            got = online_softmax_attention(q, k, v, 3, causal=causal, mask=mask)
            expect_close(got, plain_attention(q, k, v, causal, mask)[0], f"online_softmax_attention with a {dtype.__name__} batch and a mask {what}, causal={causal}", q)


def test_online_softmax_with_left_padding():
    """online_softmax_attention: left padding under the causal mask: a query that may see no key gets a zero output, never nan; the others are right"""
    rng = np.random.default_rng(17)
    real = left_padding([2, 4], 4)  # sequence 0: two padding tokens first
    q, k, v = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 4, 2))
    with np.errstate(all="ignore"):
        got = online_softmax_attention(q, k, v, 2, causal=True, mask=real[:, None, :])
    expect_finite(got, "online_softmax_attention on a left-padded batch")
    expect_close(got[0, :2], np.zeros((2, 2)), "queries 0 and 1 of sequence 0 (padding, they may see no key)")
    expect_close(got, plain_attention(q, k, v, True, real[:, None, :])[0], "online_softmax_attention on a left-padded batch", q)


def test_online_softmax_scores_near_1e4():
    """online_softmax_attention: rows of scores near -1e4 and near +1e4 in one call are finite and right"""
    rng = np.random.default_rng(18)
    q = np.concatenate([rng.standard_normal((4, 2)), np.array([[-100.0], [100.0], [-100.0], [100.0]])], axis=-1)
    k = np.concatenate([rng.standard_normal((5, 2)), np.full((5, 1), 100.0)], axis=-1)
    v = rng.standard_normal((5, 2))
    got = online_softmax_attention(q, k, v, 2)
    expect_finite(got, "online_softmax_attention with scores near ±1e4")
    expect_close(got, plain_attention(q, k, v)[0], "online_softmax_attention with scores near ±1e4", q)


def test_online_softmax_holds_only_blocks():
    """online_softmax_attention: at L_k = 2^19 keys it holds blocks of (L_q, block_size) scores, never a whole row of keys (a row is 4 MiB), and every row is right"""
    q, k, v, mask = long_keys(3, 1 << 19, 19)
    block = 4096
    got, peak = peak_of(lambda: online_softmax_attention(q, k, v, block, mask=mask))
    budget = 12 * q.shape[0] * block * 8 + (1 << 20)
    assert peak <= budget, (
        f"online_softmax_attention held {peak / 2**20:.1f} MiB beyond its inputs at L_q = 3, L_k = 2^19, block_size = {block}; "
        f"blocks of (3, {block}) need {budget / 2**20:.1f} MiB at most. A whole row of keys is 4 MiB: plain softmax over whole rows "
        "(even one query at a time), an (L_q, L_k) mask, or a copy of k or v holds more than the online algorithm"
    )
    expect_close(got, np.concatenate([plain_attention(q[i : i + 1], k, v, mask=mask)[0] for i in range(3)]), "online_softmax_attention at L_k = 2^19", q)


# ---------------------------------------------------------------- grouped-query attention


def test_gqa_shapes():
    """grouped_query_attention: 8 query heads sharing 2 key/value heads"""
    rng = np.random.default_rng(0)
    out, weights = grouped_query_attention(rng.standard_normal((1, 8, 3, 4)), rng.standard_normal((1, 2, 3, 4)), rng.standard_normal((1, 2, 3, 4)))
    expect_shape(out, (1, 8, 3, 4), "grouped_query_attention's output", "(B, h_q, T, d)")
    expect_shape(weights, (1, 8, 3, 3), "grouped_query_attention's weights", "(B, h_q, T, T)")


def test_gqa_values():
    """grouped_query_attention: query head h reads key/value head h // 4 (8 query heads, 2 kv heads), causal"""
    rng = np.random.default_rng(16)
    q, k, v = rng.standard_normal((1, 8, 3, 4)), rng.standard_normal((1, 2, 3, 4)), rng.standard_normal((1, 2, 3, 4))
    out, weights = grouped_query_attention(q, k, v, causal=True)
    for h in range(8):
        expect_close(out[:, h], plain_attention(q[:, h], k[:, h // 4], v[:, h // 4], causal=True)[0], f"query head {h}'s output (it should read kv head {h // 4})", q)


def test_gqa_with_left_padding():
    """grouped_query_attention: 6 query heads on 3 kv heads, left padding and causal: padded keys get no weight, a query that may see no key gets zero weights and output"""
    rng = np.random.default_rng(20)
    real = left_padding([1, 3], 3)
    q, k, v = rng.standard_normal((2, 6, 3, 2)), rng.standard_normal((2, 3, 3, 2)), rng.standard_normal((2, 3, 3, 2))
    with np.errstate(all="ignore"):
        out, weights = grouped_query_attention(q, k, v, causal=True, key_padding_mask=real)
    expect_finite(weights, "the weights on a left-padded batch")
    mask = real[:, None, None, :]
    for h in range(6):
        expected_out, expected_weights, _ = plain_attention(q[:, h : h + 1], k[:, h // 2 : h // 2 + 1], v[:, h // 2 : h // 2 + 1], True, mask)
        expect_close(weights[:, h : h + 1], expected_weights, f"query head {h}'s weights (kv head {h // 2}; sequence 0's queries 0 and 1 see no key)", q)
        expect_close(out[:, h : h + 1], expected_out, f"query head {h}'s output", q)


def test_gqa_scores_near_1e4():
    """grouped_query_attention: scores near ±1e4 give finite, right weights"""
    rng = np.random.default_rng(21)
    q, k, v = rng.standard_normal((1, 4, 3, 2)) * 100.0, rng.standard_normal((1, 2, 3, 2)) * 100.0, rng.standard_normal((1, 2, 3, 2))
    out, weights = grouped_query_attention(q, k, v, causal=True)
    expect_finite(weights, "the weights with scores near ±1e4")
    expect_close(out[:, 3], plain_attention(q[:, 3], k[:, 1], v[:, 1], causal=True)[0], "query head 3's output with scores near ±1e4", q)


# ---------------------------------------------------------------- a KV cache


def test_kv_cache_steps():
    """kv_cache_step: three steps equal causal attention over the three tokens"""
    rng = np.random.default_rng(0)
    x, (w_q, w_k, w_v) = rng.standard_normal((1, 3, 4)), rng.standard_normal((3, 4, 4))
    cache, outputs = None, []
    for t in range(3):
        out, cache = kv_cache_step(x[:, t : t + 1], cache, w_q, w_k, w_v)
        outputs.append(out)
    expect_shape(cache["k"], (1, 3, 4), "the cache's keys after three steps", "(B, t, d_k)")
    expect_close(np.concatenate(outputs, axis=1), plain_attention(x @ w_q, x @ w_k, x @ w_v, causal=True)[0], "the outputs of the three steps", x)


def test_kv_cache_leaves_the_cache_it_is_given():
    """kv_cache_step: from a cache it did not build, the cache passed in is not changed; the new one holds the old tokens first"""
    rng = np.random.default_rng(17)
    x_t, (w_q, w_k), w_v = rng.standard_normal((2, 1, 3)), rng.standard_normal((2, 3, 2)), rng.standard_normal((3, 4))
    cache = {"k": rng.standard_normal((2, 2, 2)), "v": rng.standard_normal((2, 2, 4))}
    kept = {name: value.copy() for name, value in cache.items()}
    out, new = kv_cache_step(x_t, cache, w_q, w_k, w_v)
    expect_unchanged("kv_cache_step", ("cache['k']", "cache['v']"), (kept["k"], kept["v"]), (cache["k"], cache["v"]))
    expect_close(new["k"], np.concatenate([kept["k"], x_t @ w_k], axis=1), "the new cache's keys (the old ones first)", x_t)
    expect_close(out, plain_attention(x_t @ w_q, new["k"], new["v"])[0], "the newest query attends to every cached key", x_t)


def test_kv_cache_with_left_padding():
    """kv_cache_step: decoding a left-padded batch with key_padding_mask: padded keys get no weight, a step that may see no key outputs 0"""
    rng = np.random.default_rng(22)
    real = left_padding([2, 4], 4)
    x, (w_q, w_k, w_v) = rng.standard_normal((2, 4, 3)), rng.standard_normal((3, 3, 2))
    cache, outputs = None, []
    with np.errstate(all="ignore"):
        for t in range(4):
            out, cache = kv_cache_step(x[:, t : t + 1], cache, w_q, w_k, w_v, key_padding_mask=real[:, : t + 1])
            outputs.append(out)
    outputs = np.concatenate(outputs, axis=1)
    expect_finite(outputs, "the steps' outputs on a left-padded batch")
    expected = plain_attention(x @ w_q, x @ w_k, x @ w_v, True, real[:, None, :])[0]
    expect_close(outputs, expected, "the steps' outputs (sequence 0's first two steps see no key: 0)", x)


def test_kv_cache_scores_near_1e4():
    """kv_cache_step: one step from a cache, with scores near ±1e4: finite and right"""
    rng = np.random.default_rng(23)
    x_t, w_q, w_k, w_v = rng.standard_normal((1, 1, 2)), rng.standard_normal((2, 2)) * 100.0, rng.standard_normal((2, 2)), rng.standard_normal((2, 3))
    cache = {"k": rng.standard_normal((1, 3, 2)) * 100.0, "v": rng.standard_normal((1, 3, 3))}
    out, new = kv_cache_step(x_t, cache, w_q, w_k, w_v)
    expect_finite(out, "kv_cache_step's output with scores near ±1e4")
    expect_close(out, plain_attention(x_t @ w_q, new["k"], new["v"])[0], "kv_cache_step's output with scores near ±1e4", x_t)


# ---------------------------------------------------------------- FlashAttention


def test_flash_out_and_lse():
    """flash_attention: tiles of 2 queries x 3 keys: out is attention's output, lse the log-sum-exp of each query's scores"""
    rng = np.random.default_rng(30)
    q, k, v = rng.standard_normal((5, 3)), rng.standard_normal((7, 3)) * np.arange(1, 8)[:, None], rng.standard_normal((7, 2))
    out, lse = flash_attention(q, k, v, 2, 3)
    expected_out, _, expected_lse = plain_attention(q, k, v)
    expect_close(out, expected_out, "flash_attention's out", q)
    expect_close(lse, expected_lse, "flash_attention's lse (log Σ exp(scores): the max added back)", q)
    assert out.dtype == np.float64, f"float64 inputs give a float64 out, got {out.dtype}"


def test_flash_causal_and_masks_of_every_shape():
    """flash_attention: causal with tiles of 3 x 2; a batch with masks (B, L_q, L_k), of the keys (B, 1, L_k) and of the queries (B, L_q, 1), in float32 too"""
    rng = np.random.default_rng(31)
    q, k, v = rng.standard_normal((5, 2)), rng.standard_normal((5, 2)), rng.standard_normal((5, 3))
    out, lse = flash_attention(q, k, v, 3, 2, causal=True)
    expected_out, _, expected_lse = plain_attention(q, k, v, causal=True)
    expect_close(out, expected_out, "causal flash_attention's out", q)
    expect_close(lse, expected_lse, "causal flash_attention's lse", q)
    for dtype in (np.float64, np.float32):
        q, k, v = rng.standard_normal((2, 3, 2)).astype(dtype), rng.standard_normal((2, 4, 2)).astype(dtype), rng.standard_normal((2, 4, 3)).astype(dtype)
        full = rng.random((2, 3, 4)) < 0.5
        full[..., 1] = True
        for what, mask in (("(B, L_q, L_k)", full), ("of the keys", full[:, :1, :] | np.array([True, False, False, False])), ("of the queries", np.ones((2, 3, 1), dtype=bool))):
            out, lse = flash_attention(q, k, v, 2, 3, mask=mask)
            expected_out, _, expected_lse = plain_attention(q, k, v, mask=mask)
            expect_close(out, expected_out, f"flash_attention's out with a {dtype.__name__} mask {what}", q)
            expect_close(lse, expected_lse, f"flash_attention's lse with a mask {what}", q)


def test_flash_with_left_padding():
    """flash_attention: left padding under the causal mask: a query that may see no key gets out = 0 and lse = -inf, never nan"""
    rng = np.random.default_rng(32)
    real = left_padding([1, 3], 3)
    q, k, v = rng.standard_normal((2, 2, 3, 2)), rng.standard_normal((2, 2, 3, 2)), rng.standard_normal((2, 2, 3, 2))
    with np.errstate(all="ignore"):
        out, lse = flash_attention(q, k, v, 2, 2, causal=True, mask=real[:, None, None, :])
    expected_out, _, expected_lse = plain_attention(q, k, v, True, real[:, None, None, :])
    expect_close(out, expected_out, "flash_attention's out on a left-padded batch (sequence 0's first two queries: 0)", q)
    assert np.all(lse[0, :, :2] == -np.inf), f"lse of a query that may see no key is log 0 = -inf, got {lse[0, :, :2]}"
    expect_close(lse[..., 2], expected_lse[..., 2], "flash_attention's lse of the last queries", q)


def test_flash_scores_near_1e4_and_leading_axes():
    """flash_attention: rows near -1e4 and +1e4 are finite and right; leading axes on k alone broadcast over q and v"""
    rng = np.random.default_rng(33)
    q = np.concatenate([rng.standard_normal((4, 2)), np.array([[-100.0], [100.0], [-100.0], [100.0]])], axis=-1)
    k = np.concatenate([rng.standard_normal((5, 2)), np.full((5, 1), 100.0)], axis=-1)
    v = rng.standard_normal((5, 2))
    out, lse = flash_attention(q, k, v, 3, 2)
    expected_out, _, expected_lse = plain_attention(q, k, v)
    expect_finite(lse, "lse with scores near ±1e4")
    expect_close(out, expected_out, "flash_attention's out with scores near ±1e4", q)
    expect_close(lse, expected_lse, "flash_attention's lse with scores near ±1e4", q)
    k3 = np.stack([k, -k, 0.5 * k])
    out, lse = flash_attention(q, k3, v, 2, 2)
    expected_out, _, expected_lse = plain_attention(q, k3, v)
    expect_close(out, expected_out, "flash_attention's out with k (3, L_k, d) and q, v without that axis", q)


def test_flash_refuses_empty_tiles():
    """flash_attention: block_q or block_k below 1 raise ValueError"""
    q = np.ones((2, 2))
    for blocks in ((0, 1), (1, 0)):
        try:
            flash_attention(q, q, q, *blocks)
        except ValueError:
            continue
        raise AssertionError(f"flash_attention(block_q={blocks[0]}, block_k={blocks[1]}) should raise ValueError: a tile holds at least one query and one key")


def test_flash_holds_only_tiles():
    """flash_attention: at L_k = 2^19 keys it holds (block_q, block_k) tiles, never a whole row of keys (a row is 4 MiB), and every row is right"""
    q, k, v, mask = long_keys(3, 1 << 19, 34)
    block_q, block_k = 2, 4096
    (out, lse), peak = peak_of(lambda: flash_attention(q, k, v, block_q, block_k, mask=mask))
    budget = 12 * block_q * block_k * 8 + (1 << 20)
    assert peak <= budget, (
        f"flash_attention held {peak / 2**20:.1f} MiB beyond its inputs at L_q = 3, L_k = 2^19 with {block_q} x {block_k} tiles; "
        f"the tiles need {budget / 2**20:.1f} MiB at most. A whole row of keys is 4 MiB: a tile of queries against every key, "
        "an (L_q, L_k) mask, or a copy of k or v holds more than FlashAttention"
    )
    rows = [plain_attention(q[i : i + 1], k, v, mask=mask) for i in range(3)]
    expect_close(out, np.concatenate([r[0] for r in rows]), "flash_attention's out at L_k = 2^19", q)
    expect_close(lse, np.concatenate([r[2] for r in rows]), "flash_attention's lse at L_k = 2^19", q)


def test_flash_backward_values():
    """flash_attention_backward: tiles of 2 x 3, from the forward's out and lse: dq, dk, dv equal the chain rule's, causal, with a mask of the keys, or of the queries"""
    rng = np.random.default_rng(35)
    q, k, v, grad_out = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 4, 3)) * 2.0, rng.standard_normal((2, 4, 2)), rng.standard_normal((2, 4, 2))
    for what, causal, mask in (("causal", True, None), ("a mask of the keys", False, np.array([[True, False, True, True]])), ("a mask of the queries, causal", True, np.array([True, False, True, True])[:, None])):
        out, _, lse = plain_attention(q, k, v, causal, mask)
        got = flash_attention_backward(q, k, v, out, lse, grad_out, 2, 3, causal=causal, mask=mask)
        for name, mine, theirs in zip(("dq", "dk", "dv"), got, plain_backward(q, k, v, grad_out, causal, mask)):
            expect_close(mine, theirs, f"flash_attention_backward's {name} ({what})", q)


def test_flash_backward_with_left_padding_and_leading_axes():
    """flash_attention_backward: a query that may see no key (lse = -inf) gets dq = 0 and adds nothing to dk, dv; a mask (B, h, L_q, L_k) broadcasts over q, k and v of one head; float32 too"""
    rng = np.random.default_rng(36)
    real = left_padding([1, 3], 3)
    for dtype in (np.float64, np.float32):
        q, k, v, grad_out = (rng.standard_normal((2, 2, 3, 2)).astype(dtype) for _ in range(4))
        mask = np.broadcast_to(real[:, None, None, :], (2, 2, 3, 3))
        with np.errstate(all="ignore"):
            out, _, lse = plain_attention(q, k, v, True, mask)
            got = flash_attention_backward(q, k, v, out, lse, grad_out, 2, 2, causal=True, mask=mask)
        for name, mine, theirs in zip(("dq", "dk", "dv"), got, plain_backward(q, k, v, grad_out, True, mask)):
            expect_finite(mine, f"{name} on a left-padded batch")
            expect_close(mine, theirs, f"flash_attention_backward's {dtype.__name__} {name} on a left-padded batch", q)
    q1, k1, v1, g1 = (rng.standard_normal((3, 2)) for _ in range(4))
    mask = rng.random((2, 3, 3, 3)) < 0.6
    mask[..., 0] = True
    out, _, lse = plain_attention(q1, k1, v1, mask=mask)
    got = flash_attention_backward(q1, k1, v1, out, lse, g1, 2, 2, mask=mask)
    for name, mine, theirs in zip(("dq", "dk", "dv"), got, plain_backward(q1, k1, v1, g1, mask=mask)):
        expect_close(mine, theirs, f"flash_attention_backward's {name} with the leading axes on the mask alone", q1)


def test_flash_backward_refuses_empty_tiles():
    """flash_attention_backward: block_q or block_k below 1 raise ValueError"""
    q = np.ones((2, 2))
    out, lse = np.ones((2, 2)), np.full(2, np.log(2.0))  # what flash_attention gives for q = k = v = ones: no need to call it
    for blocks in ((0, 1), (1, 0)):
        try:
            flash_attention_backward(q, q, q, out, lse, np.ones((2, 2)), *blocks)
        except ValueError:
            continue
        raise AssertionError(f"flash_attention_backward(block_q={blocks[0]}, block_k={blocks[1]}) should raise ValueError: a tile holds at least one query and one key")


def test_flash_backward_holds_only_tiles():
    """flash_attention_backward: at L_k = 2^19 keys it rebuilds (block_q, block_k) tiles of the weights, never a whole row of keys (a row is 4 MiB)"""
    q, k, v, mask = long_keys(3, 1 << 19, 37)
    block_q, block_k = 2, 4096
    rows = [plain_attention(q[i : i + 1], k, v, mask=mask) for i in range(3)]
    out, lse = np.concatenate([r[0] for r in rows]), np.concatenate([r[2] for r in rows])
    grad_out = np.random.default_rng(38).standard_normal(out.shape)
    grads, peak = peak_of(lambda: flash_attention_backward(q, k, v, out, lse, grad_out, block_q, block_k, mask=mask))
    budget = q.nbytes + k.nbytes + v.nbytes + 12 * block_q * block_k * 8 + (1 << 20)
    assert peak <= budget, (
        f"flash_attention_backward held {peak / 2**20:.1f} MiB beyond its inputs at L_q = 3, L_k = 2^19 with {block_q} x {block_k} tiles; "
        f"dq, dk, dv and the tiles need {budget / 2**20:.1f} MiB at most. A whole row of weights is 4 MiB: rebuild them a tile at a time"
    )
    for name, grad, like in zip(("dq", "dk", "dv"), grads, (q, k, v)):
        expect_shape(grad, like.shape, f"flash_attention_backward's {name}", "like the input it is the gradient of")


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "efficient")
