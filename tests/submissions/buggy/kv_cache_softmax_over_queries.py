"""The step written by hand, the softmax over axis 1 (the one query).

file: efficient.py
breaks: kv_cache_step
"""

import numpy as np

def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q, k, v = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=1)
        v = np.concatenate([cache["v"], v], axis=1)
    s = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    if key_padding_mask is not None:
        s = np.where(key_padding_mask[:, None, :], s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    w = e / e.sum(axis=1, keepdims=True)
    return w @ v, {"k": k, "v": v}
