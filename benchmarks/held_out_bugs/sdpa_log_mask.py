"""Adds log(mask) to the scores: log 0 = -inf, and a query that sees no key gets nan.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        with np.errstate(divide="ignore"):
            scores = scores + np.log(np.asarray(mask, dtype=float))
    weights = softmax(scores, axis=-1)
    return weights @ v, weights
