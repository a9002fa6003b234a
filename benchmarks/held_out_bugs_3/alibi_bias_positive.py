"""Drops the minus sign: the bias rewards distance instead of penalising it.

file: masks.py
breaks: alibi_bias
"""

import numpy as np

def alibi_bias(n, n_heads):
    slopes = alibi_slopes(n_heads)
    dist = np.arange(n)[:, None] - np.arange(n)[None, :]
    return slopes[:, None, None] * dist
