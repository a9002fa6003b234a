"""Stores the new keys and values into the cache dict it was given and returns that same dict.

file: efficient.py
breaks: kv_cache_step
"""

import numpy as np

def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q = x_t @ w_q
    k = x_t @ w_k
    v = x_t @ w_v
    if cache is None:
        cache = {"k": k, "v": v}
    else:
        cache["k"] = np.concatenate([cache["k"], k], axis=1)
        cache["v"] = np.concatenate([cache["v"], v], axis=1)
    mask = None if key_padding_mask is None else key_padding_mask[:, None, :]
    out, _ = scaled_dot_product_attention(q, cache["k"], cache["v"], mask)
    return out, cache
