"""Its own attention, scaled by √d_model (the width of x_t) instead of √d_k.

file: efficient.py
breaks: kv_cache_step
"""

import numpy as np


def kv_cache_step(x_t, cache, w_q, w_k, w_v):
    q, k, v = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=-2)
        v = np.concatenate([cache["v"], v], axis=-2)
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(x_t.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v, {"k": k, "v": v}
