"""The 1/√d_k applied to the weights after the softmax instead of the scores before it.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
        scores = np.where(np.asarray(mask).any(axis=-1, keepdims=True), scores, 0.0)
    weights = softmax(scores, axis=-1) / np.sqrt(q.shape[-1])
    if mask is not None:
        weights = np.where(mask, weights, 0.0)
    return weights @ v, weights
