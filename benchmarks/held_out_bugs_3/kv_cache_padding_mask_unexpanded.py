"""Passes the (B, t+1) padding mask as it is; against (B, 1, t+1) scores it broadcasts across the batch.

file: efficient.py
breaks: kv_cache_step
"""

import numpy as np

def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q, k, v = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=-2)
        v = np.concatenate([cache["v"], v], axis=-2)
    out, _ = scaled_dot_product_attention(q, k, v, key_padding_mask)
    return out, {"k": k, "v": v}
