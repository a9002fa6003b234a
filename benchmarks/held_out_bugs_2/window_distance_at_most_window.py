"""Keeps keys with i - j <= window: the query plus window keys before it.

file: masks.py
breaks: sliding_window_mask
"""

import numpy as np


def sliding_window_mask(n, window):
    i, j = np.indices((n, n))
    return (j <= i) & (i - j <= window)
