"""Attends with the rotated keys but stores the keys before the rotation in the new cache.

file: decoding.py
breaks: cached_rope_attention
"""

import numpy as np

def cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    t = 0 if cache is None else cache["k"].shape[-2]
    n = x_new.shape[-2]
    pos = t + np.arange(n)
    q = rope(x_new @ w_q, pos, theta)
    k_raw = x_new @ w_k
    k = rope(k_raw, pos, theta)
    v = x_new @ w_v
    if cache is None:
        keys, values, stored = k, v, k_raw
    else:
        keys = np.concatenate([cache["k"], k], axis=-2)
        values = np.concatenate([cache["v"], v], axis=-2)
        stored = np.concatenate([cache["k"], k_raw], axis=-2)
    out, _ = scaled_dot_product_attention(q, keys, values, bottom_right_causal_mask(n, t + n))
    return out, {"k": stored, "v": values}
