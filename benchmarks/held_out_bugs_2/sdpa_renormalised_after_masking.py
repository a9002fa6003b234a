"""Softmax first, then the masked weights zeroed and the rows renormalised: 0 / 0 for a query that sees no key.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    weights = softmax(attention_scores(q, k), axis=-1)
    if mask is not None:
        weights = weights * mask
        weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
