"""scores[~mask] = -inf: fails on a mask that only broadcasts to the scores.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores[~mask] = -np.inf
    weights = softmax(scores, axis=-1)
    weights[np.isnan(weights)] = 0.0
    return weights @ v, weights
