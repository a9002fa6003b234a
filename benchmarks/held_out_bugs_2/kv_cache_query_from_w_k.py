"""A typo: the new query is projected with w_k.

file: efficient.py
breaks: kv_cache_step
"""

import numpy as np


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q, k, v = x_t @ w_k, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=1)
        v = np.concatenate([cache["v"], v], axis=1)
    mask = None if key_padding_mask is None else key_padding_mask[:, None, :]
    out, _ = scaled_dot_product_attention(q, k, v, mask)
    return out, {"k": k, "v": v}
