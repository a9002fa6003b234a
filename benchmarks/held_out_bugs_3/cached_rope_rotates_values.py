"""Rotates the values as well as the queries and keys.

file: decoding.py
breaks: cached_rope_attention
"""

import numpy as np

def cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    t = 0 if cache is None else cache["k"].shape[-2]
    n = x_new.shape[-2]
    pos = np.arange(t, t + n)
    q, k, v = (rope(x_new @ w, pos, theta) for w in (w_q, w_k, w_v))
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=-2)
        v = np.concatenate([cache["v"], v], axis=-2)
    out, _ = scaled_dot_product_attention(q, k, v, bottom_right_causal_mask(n, t + n))
    return out, {"k": k, "v": v}
