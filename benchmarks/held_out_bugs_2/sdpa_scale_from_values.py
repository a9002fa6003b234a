"""Scores written out by hand, scaled by the width of the values.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    d = v.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)
    if mask is not None:
        visible = np.broadcast_to(mask, scores.shape)
        scores = np.where(visible, scores, -np.inf)
        scores = np.where(visible.any(axis=-1, keepdims=True), scores, 0.0)
        weights = np.where(visible, softmax(scores, axis=-1), 0.0)
    else:
        weights = softmax(scores, axis=-1)
    return weights @ v, weights
