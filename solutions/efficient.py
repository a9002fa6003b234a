"""Exercise 8: attention that scales — online softmax, grouped-query attention, a KV cache.

The score matrix is L_q × L_k per head: O(T²) memory. The online softmax
(FlashAttention's trick) walks over blocks of keys with a running maximum and
a running sum, rescaling what it has accumulated whenever the maximum grows,
and never holds the whole matrix. Grouped-query attention lets several query
heads share one key/value head. A KV cache keeps past keys and values so each
decoding step projects only the newest token.
"""

import numpy as np

from attention import scaled_dot_product_attention
from masks import causal_mask


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    """Scaled dot-product attention computed over key blocks, never holding an (L_q, L_k) array.

    Shapes: q (..., L_q, d_k), k (..., L_k, d_k), v (..., L_k, d_v), block_size >= 1,
    mask None or broadcastable to (..., L_q, L_k), True = may attend
    -> out (..., L_q, d_v), equal to scaled_dot_product_attention(q, k, v, mask)[0].
    With ``causal=True`` (L_q == L_k) query i sees keys 0..i, and the mask hides more. A query
    that may see no key gets a zero output (its running sum stays 0), never nan.
    """
    ### BEGIN SOLUTION
    ### HINT: keep per query a running max m, a running sum l and an output accumulator; when a block raises m to m', multiply l and the accumulator by exp(m - m') before adding the block. Slice the mask per block (np.broadcast_to it to (..., L_q, L_k) first: a view, no memory). While a query has seen no visible key its m is -inf: shift by 0 instead of m', since -inf - (-inf) is nan; at the end a query whose l is still 0 saw no key: its output is 0, not 0 / 0.
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1, got {block_size}")
    n_queries, n_keys, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_queries, n_keys)))  # (..., L_q, L_k), a view
    running_max = np.full(lead + (n_queries, 1), -np.inf)  # (..., L_q, 1)
    running_sum = np.zeros(lead + (n_queries, 1))  # (..., L_q, 1)
    accumulated = np.zeros(lead + (n_queries, v.shape[-1]))  # (..., L_q, d_v)
    query_index = np.arange(n_queries)[:, None]  # (L_q, 1)
    for start in range(0, n_keys, block_size):
        stop = min(start + block_size, n_keys)
        block_scores = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / np.sqrt(d_k)  # (..., L_q, b)
        if causal:
            visible = query_index >= np.arange(start, stop)[None, :]  # (L_q, b)
            block_scores = np.where(visible, block_scores, -np.inf)
        if mask is not None:
            block_scores = np.where(mask[..., start:stop], block_scores, -np.inf)
        new_max = np.maximum(running_max, block_scores.max(axis=-1, keepdims=True))
        # A query that has seen no visible key yet has a max of -inf: it shifts by 0 instead, so
        # that -inf - (-inf) = nan is never computed and its sums stay exactly 0.
        shift = np.where(new_max > -np.inf, new_max, 0.0)  # (..., L_q, 1)
        rescale = np.exp(running_max - shift)  # (..., L_q, 1)
        block_weights = np.exp(block_scores - shift)  # (..., L_q, b), unnormalised
        running_sum = running_sum * rescale + block_weights.sum(axis=-1, keepdims=True)
        accumulated = accumulated * rescale + block_weights @ v[..., start:stop, :]
        running_max = new_max
    # A query that may see no key has a running sum of 0 and gets a zero output, not 0 / 0.
    return np.divide(accumulated, running_sum, out=np.zeros_like(accumulated), where=running_sum > 0)  # (..., L_q, d_v)
    ### END SOLUTION


def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    """Grouped-query attention: h_q query heads share h_kv key/value heads.

    Shapes: q (B, h_q, T, d), k and v (B, h_kv, T, d), h_q % h_kv == 0,
    key_padding_mask (B, T) bool, True at real tokens
    -> (out (B, h_q, T, d), weights (B, h_q, T, T)).
    Query head h reads key/value head h // (h_q / h_kv). A query that may see no key (left
    padding under ``causal=True``) gets zero weights and a zero output in every head.
    """
    ### BEGIN SOLUTION
    ### HINT: with group = h_q // h_kv, np.repeat(k, group, axis=1) lines up kv head h // group with query head h; a (B, T) padding mask becomes (B, 1, 1, T), combined with the causal mask by &.
    h_q, h_kv = q.shape[1], k.shape[1]
    if h_q % h_kv:
        raise ValueError(f"h_q={h_q} query heads cannot share h_kv={h_kv} key/value heads evenly")
    group = h_q // h_kv
    k = np.repeat(k, group, axis=1)  # (B, h_q, T, d): head h gets kv head h // group
    v = np.repeat(v, group, axis=1)  # (B, h_q, T, d)
    mask = causal_mask(q.shape[-2]) if causal else None  # (T, T)
    if key_padding_mask is not None:
        keys_visible = key_padding_mask[:, None, None, :]  # (B, 1, 1, T)
        mask = keys_visible if mask is None else mask & keys_visible  # (B, 1, T, T)
    return scaled_dot_product_attention(q, k, v, mask)
    ### END SOLUTION


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    """One decoding step with a key/value cache.

    Shapes: x_t (B, 1, d_model), cache None or {"k": (B, t, d_k), "v": (B, t, d_v)},
    w_q, w_k (d_model, d_k), w_v (d_model, d_v),
    key_padding_mask None or (B, t+1) bool, True at real tokens among the cached ones and the new one
    -> (out_t (B, 1, d_v), new_cache {"k": (B, t+1, d_k), "v": (B, t+1, d_v)}).
    The cache passed in is left unchanged. Running the steps over a sequence
    gives the same outputs as causal self_attention over it. With left padding, a step whose
    token and every earlier one are padding may see no key: its output is 0.
    """
    ### BEGIN SOLUTION
    ### HINT: append the new key and value along the token axis (-2); the newest query may see every cached key, so no causal mask is needed, only the padding mask as (B, 1, t+1).
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v  # (B, 1, d_k), (B, 1, d_k), (B, 1, d_v)
    if cache is not None:
        k_t = np.concatenate([cache["k"], k_t], axis=-2)  # (B, t+1, d_k)
        v_t = np.concatenate([cache["v"], v_t], axis=-2)  # (B, t+1, d_v)
    mask = None if key_padding_mask is None else key_padding_mask[:, None, :]  # (B, 1, t+1)
    out_t, _ = scaled_dot_product_attention(q_t, k_t, v_t, mask)  # (B, 1, d_v)
    return out_t, {"k": k_t, "v": v_t}
    ### END SOLUTION
