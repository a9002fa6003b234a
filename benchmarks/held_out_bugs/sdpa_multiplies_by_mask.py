"""Masks by multiplying the scores by the mask: masked scores become 0, not -inf.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = scores * mask
    weights = softmax(scores, axis=-1)
    return weights @ v, weights
