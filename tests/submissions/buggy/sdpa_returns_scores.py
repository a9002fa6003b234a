"""Returns the scores where the weights belong.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.nan_to_num(softmax(scores, axis=-1))
    return weights @ v, scores
