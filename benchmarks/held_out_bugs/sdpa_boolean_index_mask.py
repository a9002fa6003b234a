"""scores[~mask] = -inf: boolean indexing needs the mask's full shape, so a broadcast mask fails.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores[~mask] = -np.inf
        blind = ~np.asarray(mask).any(axis=-1)
        scores[blind] = 0.0
    weights = softmax(scores, axis=-1)
    if mask is not None:
        weights[~mask] = 0.0
    return weights @ v, weights
