"""Moves the heads forward with swapaxes(1, 2), numbering the axes as if there were a batch.

file: multihead.py
breaks: split_heads
"""

import numpy as np


def split_heads(x, n_heads):
    *lead, T, d_model = x.shape
    d_head = d_model // n_heads
    x = x.reshape(*lead, T, n_heads, d_head)
    return x.swapaxes(1, 2)
