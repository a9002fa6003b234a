"""Masks the chunk with np.tril of (n, t+n): aligned to the first key instead of the last.

file: decoding.py
breaks: cached_rope_attention
"""

import numpy as np

def cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    t = 0 if cache is None else cache["k"].shape[-2]
    n = x_new.shape[-2]
    pos = t + np.arange(n)
    q = rope(x_new @ w_q, pos, theta)
    k = rope(x_new @ w_k, pos, theta)
    v = x_new @ w_v
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=-2)
        v = np.concatenate([cache["v"], v], axis=-2)
    mask = np.tril(np.ones((n, t + n), dtype=bool))
    out, _ = scaled_dot_product_attention(q, k, v, mask)
    return out, {"k": k, "v": v}
