"""Masks the new tokens with np.tril of an (n, t + n) array: aligned to the first key.

file: decoding.py
breaks: cached_rope_attention
"""

import numpy as np


def cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    t = 0 if cache is None else cache["k"].shape[1]
    n = x_new.shape[1]
    positions = t + np.arange(n)
    q = rope(x_new @ w_q, positions, theta)
    k = rope(x_new @ w_k, positions, theta)
    v = x_new @ w_v
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=1)
        v = np.concatenate([cache["v"], v], axis=1)
    mask = np.tril(np.ones((n, t + n), dtype=bool))
    out, _ = scaled_dot_product_attention(q, k, v, mask)
    return out, {"k": k, "v": v}
