"""Moves the heads back with swapaxes(1, 2), numbering the axes as if there were a batch.

file: multihead.py
breaks: merge_heads
"""

import numpy as np


def merge_heads(x):
    *lead, n_heads, T, d_head = x.shape
    return x.swapaxes(1, 2).reshape(*lead, T, n_heads * d_head)
