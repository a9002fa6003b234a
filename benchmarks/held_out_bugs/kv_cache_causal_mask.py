"""Applies a (t+1) x (t+1) causal mask to the newest query's single row of scores.

file: efficient.py
breaks: kv_cache_step
"""

import numpy as np


def kv_cache_step(x_t, cache, w_q, w_k, w_v):
    q, k, v = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=-2)
        v = np.concatenate([cache["v"], v], axis=-2)
    mask = causal_mask(k.shape[-2])[:1]
    out, _ = scaled_dot_product_attention(q, k, v, mask)
    return out, {"k": k, "v": v}
