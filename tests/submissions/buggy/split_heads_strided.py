"""Puts the head index last in the reshape, so head h gets every n_heads-th feature.

file: multihead.py
breaks: split_heads
"""

import numpy as np


def split_heads(x, n_heads):
    *lead, T, d_model = x.shape
    d_head = d_model // n_heads
    x = x.reshape(*lead, T, d_head, n_heads)
    return np.moveaxis(x, -1, -3)
