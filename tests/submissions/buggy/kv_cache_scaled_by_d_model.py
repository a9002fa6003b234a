"""Its own attention, scaled by the width of x_t.

file: efficient.py
breaks: kv_cache_step
"""

import numpy as np
from softmax import softmax


def kv_cache_step(x_t, cache, w_q, w_k, w_v):
    q, k, v = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k = np.concatenate([cache["k"], k], axis=-2)
        v = np.concatenate([cache["v"], v], axis=-2)
    d_model = x_t.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_model)
    w = softmax(scores)
    return w @ v, {"k": k, "v": v}
