"""Unpacks (B, T, d_model) and transposes (0, 2, 1, 3): a batch only.

file: multihead.py
breaks: split_heads
"""

import numpy as np


def split_heads(x, n_heads):
    batch, t, d_model = x.shape
    return x.reshape(batch, t, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)
