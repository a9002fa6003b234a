"""Moves the head axis to the end before flattening, interleaving the heads' features.

file: multihead.py
breaks: merge_heads
"""

import numpy as np


def merge_heads(x):
    *lead, n_heads, T, d_head = x.shape
    x = np.moveaxis(x, -3, -1)  # (..., T, d_head, n_heads)
    return x.reshape(*lead, T, n_heads * d_head)
