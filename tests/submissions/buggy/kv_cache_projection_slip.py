"""A copy-paste slip: the new query is projected with w_k.

file: efficient.py
breaks: kv_cache_step
"""

import numpy as np

def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q_t = x_t @ w_k
    k_t = x_t @ w_k
    v_t = x_t @ w_v
    if cache is not None:
        k_t = np.concatenate([cache["k"], k_t], axis=1)
        v_t = np.concatenate([cache["v"], v_t], axis=1)
    mask = None if key_padding_mask is None else key_padding_mask[:, None, :]
    return scaled_dot_product_attention(q_t, k_t, v_t, mask)[0], {"k": k_t, "v": v_t}
