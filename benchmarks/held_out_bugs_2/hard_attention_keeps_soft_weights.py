"""Returns the soft weights' argmax as the output index but keeps the softmax weights.

file: heads.py
breaks: hard_attention
"""

import numpy as np


def hard_attention(q, k, v):
    scores = attention_scores(q, k)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    best = np.argmax(weights, axis=-1)
    out = np.take_along_axis(v, best[..., None], axis=-2) if v.ndim == weights.ndim else v[best]
    return out, weights
