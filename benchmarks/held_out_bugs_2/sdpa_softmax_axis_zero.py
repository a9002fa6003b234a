"""softmax(scores, axis=0): the first axis, the queries of a 2-D call or the batch of a 3-D one.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=0)
    return weights @ v, weights
