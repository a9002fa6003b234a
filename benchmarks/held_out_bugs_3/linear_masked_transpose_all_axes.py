"""Transposes φ(k) with .T, which reverses every axis: right for 2-D inputs only.

file: linear_attention.py
breaks: linear_attention_masked
"""

import numpy as np

def linear_attention_masked(q, k, v, causal=True):
    w = elu_feature_map(q) @ elu_feature_map(k).T
    if causal:
        w = np.tril(w)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v
