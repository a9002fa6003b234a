"""A symmetric band |i - j| < window: it sees the future too.

file: masks.py
breaks: sliding_window_mask
"""

import numpy as np


def sliding_window_mask(n, window):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return np.abs(i - j) < window
