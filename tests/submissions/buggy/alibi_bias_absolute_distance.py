"""Penalises |i − j|, so the future keys get a penalty too instead of the plain linear bias.

file: masks.py
breaks: alibi_bias
"""

import numpy as np


def alibi_bias(n, n_heads):
    distance = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
    return -alibi_slopes(n_heads).reshape(-1, 1, 1) * distance
