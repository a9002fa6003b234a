"""Returns the masked scores in place of the weights.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        mask, scores = np.broadcast_arrays(mask, scores)
        sees = mask.any(axis=-1, keepdims=True)
        scores = np.where(mask, scores, np.where(sees, -np.inf, 0.0))
        weights = np.where(mask, softmax(scores, axis=-1), 0.0)
    else:
        weights = softmax(scores, axis=-1)
    return weights @ v, scores
