"""Adds the boolean mask to the scores, as one would an additive mask.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np
from scores import attention_scores
from softmax import softmax


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = scores + mask
    weights = softmax(scores, axis=-1)
    return weights @ v, weights
