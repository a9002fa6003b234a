"""Attends to the cache first and appends the new key and value afterwards.

file: efficient.py
breaks: kv_cache_step
"""

import numpy as np


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q = x_t @ w_q
    k_new = x_t @ w_k
    v_new = x_t @ w_v
    if cache is None:
        keys, values = k_new, v_new
        new_cache = {"k": k_new, "v": v_new}
    else:
        keys, values = cache["k"], cache["v"]
        new_cache = {
            "k": np.concatenate([cache["k"], k_new], axis=1),
            "v": np.concatenate([cache["v"], v_new], axis=1),
        }
    mask = None
    if key_padding_mask is not None:
        mask = key_padding_mask[:, None, : keys.shape[1]]
    out, _ = scaled_dot_product_attention(q, keys, values, mask)
    return out, new_cache
