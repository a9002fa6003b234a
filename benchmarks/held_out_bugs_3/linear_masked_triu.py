"""Keeps the upper triangle of the weights (np.triu) instead of the lower one.

file: linear_attention.py
breaks: linear_attention_masked
"""

import numpy as np

def linear_attention_masked(q, k, v, causal=True):
    fq = elu_feature_map(q)
    fk = elu_feature_map(k)
    w = fq @ np.swapaxes(fk, -1, -2)
    if causal:
        w = np.triu(w)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v
