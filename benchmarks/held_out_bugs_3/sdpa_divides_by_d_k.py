"""Divides the raw scores by d_k instead of √d_k.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np

def scaled_dot_product_attention(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -1, -2) / q.shape[-1]
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    w = softmax(s, axis=-1)
    if mask is not None:
        w = np.where(np.any(mask, axis=-1, keepdims=True), w, 0.0)
        w = np.nan_to_num(w)
    return w @ v, w
