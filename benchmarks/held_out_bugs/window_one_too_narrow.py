"""j > i - window + 1: one key too few.

file: masks.py
breaks: sliding_window_mask
"""

import numpy as np


def sliding_window_mask(n, window):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return (j <= i) & (j > i - window + 1)
