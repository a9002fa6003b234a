"""Counts the window's keys strictly before the query: the query cannot see itself.

file: masks.py
breaks: sliding_window_mask
"""

import numpy as np


def sliding_window_mask(n, window):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return (j < i) & (i - j <= window)
