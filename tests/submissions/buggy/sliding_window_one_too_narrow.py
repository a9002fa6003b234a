"""Keeps window - 1 keys instead of window.

file: masks.py
breaks: sliding_window_mask
"""

import numpy as np


def sliding_window_mask(n, window):
    rows = np.arange(n)[:, None]
    cols = np.arange(n)[None, :]
    return (cols <= rows) & (rows - cols < window - 1)
