"""Counts the heads from 0, so the first head's slope is 1.

file: masks.py
breaks: alibi_slopes
"""

import numpy as np


def alibi_slopes(n_heads):
    return np.array([2 ** (-8 * h / n_heads) for h in range(n_heads)])
