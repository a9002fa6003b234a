"""Reshapes to (..., T, d_head, n_heads): each head takes every n_heads-th feature.

file: multihead.py
breaks: split_heads
"""

import numpy as np


def split_heads(x, n_heads):
    *lead, t, d_model = x.shape
    d_head = d_model // n_heads
    return np.moveaxis(x.reshape(*lead, t, d_head, n_heads), -1, -3)
