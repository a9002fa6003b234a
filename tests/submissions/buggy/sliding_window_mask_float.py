"""Builds the window with np.zeros and fills ones: a float mask.

file: masks.py
breaks: sliding_window_mask
"""

import numpy as np

def sliding_window_mask(n, window):
    mask = np.zeros((n, n))
    for i in range(n):
        mask[i, max(0, i - window + 1) : i + 1] = 1
    return mask
