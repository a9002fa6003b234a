"""Normalises each row by its sum before zeroing the future: the causal rows no longer sum to 1.

file: linear_attention.py
breaks: linear_attention_masked
"""

import numpy as np

def linear_attention_masked(q, k, v, causal=True):
    w = elu_feature_map(q) @ np.swapaxes(elu_feature_map(k), -1, -2)
    w = w / np.sum(w, axis=-1, keepdims=True)
    if causal:
        w = np.tril(w)
    return w @ v
