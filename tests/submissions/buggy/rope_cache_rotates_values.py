"""Rotates the values with RoPE as well as the queries and keys.

file: decoding.py
breaks: cached_rope_attention
"""

import numpy as np


def cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    past = 0 if cache is None else cache["k"].shape[1]
    positions = np.arange(past, past + x_new.shape[1])
    q = rope(x_new @ w_q, positions, theta)
    k = rope(x_new @ w_k, positions, theta)
    v = rope(x_new @ w_v, positions, theta)
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=1)
        v = np.concatenate([cache["v"], v], axis=1)
    out, _ = scaled_dot_product_attention(q, k, v, bottom_right_causal_mask(x_new.shape[1], k.shape[1]))
    return out, {"k": k, "v": v}
