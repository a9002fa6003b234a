"""Rotates every chunk as if it started at position 0 instead of at the cache's length.

file: decoding.py
breaks: cached_rope_attention
"""

import numpy as np

def cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    n = x_new.shape[1]
    pos = np.arange(n)
    q = rope(x_new @ w_q, pos, theta)
    k = rope(x_new @ w_k, pos, theta)
    v = x_new @ w_v
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=1)
        v = np.concatenate([cache["v"], v], axis=1)
    mask = bottom_right_causal_mask(n, k.shape[1])
    out, _ = scaled_dot_product_attention(q, k, v, mask)
    return out, {"k": k, "v": v}
