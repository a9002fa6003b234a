"""Swaps the head axis with the width axis (-3 and -1) before the reshape.

file: multihead.py
breaks: merge_heads
"""

import numpy as np


def merge_heads(x):
    *lead, h, t, d = x.shape
    return np.swapaxes(x, -3, -1).reshape(*lead, t, h * d)
