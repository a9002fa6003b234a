"""np.where(mask, -inf, scores): the arguments the wrong way round.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    weights = softmax(scores, axis=-1)
    weights = np.nan_to_num(weights)
    return weights @ v, weights
