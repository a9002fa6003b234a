"""Caches the keys before RoPE and rotates every key at each call.

file: decoding.py
breaks: cached_rope_attention
"""

import numpy as np


def cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    t = 0 if cache is None else cache["k"].shape[1]
    n = x_new.shape[1]
    k = x_new @ w_k
    v = x_new @ w_v
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=1)
        v = np.concatenate([cache["v"], v], axis=1)
    q = rope(x_new @ w_q, np.arange(t, t + n), theta)
    k_rotated = rope(k, np.arange(t + n), theta)
    out, _ = scaled_dot_product_attention(q, k_rotated, v, bottom_right_causal_mask(n, t + n))
    return out, {"k": k, "v": v}
