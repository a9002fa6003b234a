"""Nested loops that mark only the keys strictly before each query.

file: masks.py
breaks: causal_mask
"""

import numpy as np


def causal_mask(n):
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i):
            mask[i, j] = True
    return mask
