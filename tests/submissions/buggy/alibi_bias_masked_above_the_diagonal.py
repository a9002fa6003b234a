"""Builds the causal mask into the bias: −inf above the diagonal.

file: masks.py
breaks: alibi_bias
"""

import numpy as np


def alibi_bias(n, n_heads):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    bias = -alibi_slopes(n_heads)[:, None, None] * (i - j)
    bias[:, j > i] = -np.inf
    return bias
