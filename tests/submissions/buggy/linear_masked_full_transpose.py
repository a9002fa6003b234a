"""Transposes the key features with .T, which reverses every axis of a batch.

file: linear_attention.py
breaks: linear_attention_masked
"""

import numpy as np


def linear_attention_masked(q, k, v, causal=True):
    fq = elu_feature_map(q)
    fk = elu_feature_map(k)
    a = fq @ fk.T
    if causal:
        a = np.tril(a)
    a = a / a.sum(-1, keepdims=True)
    return a @ v
