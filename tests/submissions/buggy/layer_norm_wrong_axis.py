"""Normalises over axis 1, the tokens of a (B, T, d) batch.

file: induction.py
breaks: layer_norm
"""

import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = np.mean(x, axis=1, keepdims=True)
    var = np.var(x, axis=1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
