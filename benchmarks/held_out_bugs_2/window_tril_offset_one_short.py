"""The band cut with np.tril(k=-(window - 1)): a window one key narrower than asked.

file: masks.py
breaks: sliding_window_mask
"""

import numpy as np


def sliding_window_mask(n, window):
    lower = np.tril(np.ones((n, n), dtype=bool))
    too_far = np.tril(np.ones((n, n), dtype=bool), k=-(window - 1))
    return lower & ~too_far
