"""Appends to the cache it was given and returns that same dict: the caller's cache changes under it.

file: efficient.py
breaks: kv_cache_step
"""

import numpy as np


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is None:
        cache = {"k": k_t, "v": v_t}
    else:
        cache["k"] = np.concatenate([cache["k"], k_t], axis=-2)
        cache["v"] = np.concatenate([cache["v"], v_t], axis=-2)
    mask = None if key_padding_mask is None else key_padding_mask[:, None, :]
    out_t, _ = scaled_dot_product_attention(q_t, cache["k"], cache["v"], mask)
    return out_t, cache
