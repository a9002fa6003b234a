"""Fills masked scores with -1e30: masked weights are 0, but a query that sees no key gets a uniform row.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = np.where(mask, scores, -1e30)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights
