"""Divides the weights by their sums along axis -2: each key's column is normalised, not each query's row.

file: linear_attention.py
breaks: linear_attention_masked
"""

import numpy as np


def linear_attention_masked(q, k, v, causal=True):
    weights = elu_feature_map(q) @ np.swapaxes(elu_feature_map(k), -1, -2)
    if causal:
        weights = np.tril(weights)
    totals = np.sum(weights, axis=-2, keepdims=True)
    return np.matmul(weights / totals, v)
