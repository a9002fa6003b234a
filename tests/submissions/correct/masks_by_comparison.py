"""Masks by comparing index grids instead of np.tril.

file: masks.py
"""

import numpy as np


def causal_mask(n):
    rows, cols = np.indices((n, n))
    return cols <= rows


def padding_mask(lengths, max_len):
    return np.array([[position < length for position in range(max_len)] for length in lengths], dtype=bool).reshape(len(lengths), max_len)
