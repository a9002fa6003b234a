"""Asserts 2-D inputs: any batched call raises AssertionError.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    assert q.ndim == 2 and k.ndim == 2 and v.ndim == 2, "expected 2-D q, k, v"
    scores = q @ k.T / np.sqrt(q.shape[1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
        scores = np.where(np.isneginf(scores).all(axis=-1, keepdims=True), 0.0, scores)
        weights = np.where(mask, softmax(scores, axis=-1), 0.0)
    else:
        weights = softmax(scores, axis=-1)
    return weights @ v, weights
