"""Scales the queries in place before the product.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np

from softmax import softmax


def scaled_dot_product_attention(q, k, v, mask=None):
    q /= np.sqrt(q.shape[-1])
    scores = q @ np.swapaxes(k, -1, -2)
    if mask is None:
        weights = softmax(scores, axis=-1)
        return weights @ v, weights
    mask, scores = np.broadcast_arrays(mask, scores)
    sees = mask.any(axis=-1, keepdims=True)
    scores = np.where(mask, scores, np.where(sees, -np.inf, 0.0))
    weights = np.where(mask, softmax(scores, axis=-1), 0.0)
    return weights @ v, weights
