"""Builds the one-hot weights as integers (astype(int)) instead of floats.

file: heads.py
breaks: hard_attention
"""

import numpy as np

def hard_attention(q, k, v):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    best = np.argmax(scores, axis=-1)
    weights = (np.arange(k.shape[-2]) == best[..., None]).astype(int)
    return weights @ v, weights
