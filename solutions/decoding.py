"""Exercise 8c: decoding with a cache that is right: the true position, the mask's corner, the sinks.

A decoder does not always add one token at a time. A long prompt is fed in chunks (chunked
prefill), and speculative decoding checks several drafted tokens in one call. Each time, n new
tokens arrive after the t tokens whose keys and values are cached:

- the new tokens sit at positions t, t+1, ..., t+n-1, so RoPE turns their queries and keys by
  those angles: a chunk rotated as if it began at 0 puts every cached key at the wrong distance;
- new query i may see every cached key and the new keys up to itself: its row of the mask is
  row t+i of the (t+n) × (t+n) causal mask. The (n, t+n) mask is that square's bottom-right
  corner, aligned to the last key; np.tril of an (n, t+n) array is aligned to the first key and
  hides almost the whole cache;
- a cache kept to a fixed size keeps the first few tokens (attention sinks: queries pour the
  weight they give nowhere else into them) and the most recent window (StreamingLLM). A plain
  sliding window drops the sinks with the other old tokens, and that is what breaks it.
"""

import numpy as np
from attention import scaled_dot_product_attention
from positions import rope


def bottom_right_causal_mask(n_queries, n_keys):
    """The causal mask of the newest ``n_queries`` tokens over all ``n_keys`` tokens so far.

    Shapes: n_queries, n_keys (ints, 1 ≤ n_queries ≤ n_keys) -> (n_queries, n_keys) bool,
    True where j ≤ i + (n_keys - n_queries): query i is position n_keys - n_queries + i and sees
    every key up to itself. With n_queries == n_keys it is causal_mask(n_keys); with one query,
    every key is True.

    >>> bottom_right_causal_mask(2, 4)
    array([[ True,  True,  True, False],
           [ True,  True,  True,  True]])
    """
    ### BEGIN SOLUTION
    ### HINT: the queries are the last n_queries positions: compare key j with query i's position, i + (n_keys - n_queries), not with i.
    i = np.arange(n_queries)[:, None]  # (n_queries, 1) queries, counted from the first new token
    j = np.arange(n_keys)[None, :]  # (1, n_keys) keys, counted from the first token
    return j <= i + (n_keys - n_queries)
    ### END SOLUTION


def cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    """New tokens attend over the cache and themselves, with RoPE at their true positions.

    Shapes: x_new (B, n, d_model), cache None or {"k": (B, t, d_k), "v": (B, t, d_v)} (keys
    already rotated, at positions 0..t-1), w_q, w_k (d_model, d_k) with d_k even,
    w_v (d_model, d_v) -> (out (B, n, d_v), new_cache {"k": (B, t+n, d_k), "v": (B, t+n, d_v)}).
    The new tokens are at positions t..t+n-1 (t = 0 without a cache). Their queries and keys are
    rotated by ``rope`` at those positions, and the new cache holds their rotated keys after the
    cached ones. New query i sees every cached key and new keys 0..i
    (bottom_right_causal_mask(n, t+n)). A sequence fed in chunks of any sizes, each call given the
    cache the last returned, gets the outputs and the cache of one call on the whole sequence. The
    cache passed in is left unchanged.
    """
    ### BEGIN SOLUTION
    ### HINT: t is the number of cached tokens, the keys' length along the token axis -2 (0 without a cache); rotate q and k at positions t + np.arange(n), append to the cache along the token axis (-2), and mask with bottom_right_causal_mask(n, t + n).
    t = 0 if cache is None else cache["k"].shape[-2]
    positions = t + np.arange(x_new.shape[-2])  # (n,) the new tokens' true positions
    q = rope(x_new @ w_q, positions, theta)  # (B, n, d_k)
    k = rope(x_new @ w_k, positions, theta)  # (B, n, d_k)
    v = x_new @ w_v  # (B, n, d_v): values are never rotated
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=-2)  # (B, t+n, d_k)
        v = np.concatenate([cache["v"], v], axis=-2)  # (B, t+n, d_v)
    out, _ = scaled_dot_product_attention(q, k, v, bottom_right_causal_mask(x_new.shape[-2], k.shape[-2]))
    return out, {"k": k, "v": v}
    ### END SOLUTION


def evict_to_sinks_and_window(cache, n_sinks, window):
    """StreamingLLM's bounded cache: keep the first ``n_sinks`` tokens and the last ``window``, drop the middle.

    Shapes: cache {"k": (B, t, d_k), "v": (B, t, d_v)}, n_sinks (int ≥ 0), window (int ≥ 1)
    -> {"k": (B, m, d_k), "v": (B, m, d_v)} with m = min(t, n_sinks + window): tokens
    0..n_sinks-1 and t-window..t-1, in their order, each once (with t ≤ n_sinks + window
    nothing is dropped). The cache passed in is left unchanged. The newest token's query over
    the kept keys gets the output it gets over every key under the last row of
    sink_window_mask(t, n_sinks, window). The kept keys keep the rotations of their true
    positions, so cached_rope_attention, which places new tokens at the cache's length, does not
    continue from an evicted cache (StreamingLLM caches keys before RoPE and numbers the
    positions within the cache instead).
    """
    ### BEGIN SOLUTION
    ### HINT: a token j is kept when j < n_sinks or j >= t - window; index the token axis (-2) with the kept positions, so that no token is kept twice.
    t = cache["k"].shape[-2]
    position = np.arange(t)  # (t,)
    kept = np.flatnonzero((position < n_sinks) | (position >= t - window))  # (m,)
    return {"k": cache["k"][..., kept, :], "v": cache["v"][..., kept, :]}
    ### END SOLUTION
