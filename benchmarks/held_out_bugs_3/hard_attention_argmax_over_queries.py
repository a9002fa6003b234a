"""Picks, for each key, its best query (argmax along axis -2) and one-hots that.

file: heads.py
breaks: hard_attention
"""

import numpy as np

def hard_attention(q, k, v):
    scores = attention_scores(q, k)
    best = np.argmax(scores, axis=-2)
    weights = np.zeros(scores.shape)
    np.put_along_axis(weights, best[..., None, :], 1.0, axis=-2)
    return weights @ v, weights
