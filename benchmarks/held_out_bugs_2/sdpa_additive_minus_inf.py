"""Adds a bias of 0 / -inf built from the mask: a row with no visible key is all -inf, and its softmax nan.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = scores + np.where(mask, 0.0, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights
