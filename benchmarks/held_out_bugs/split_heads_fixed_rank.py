"""transpose(0, 2, 1, 3): written for (B, T, d_model) only.

file: multihead.py
breaks: split_heads
"""

import numpy as np


def split_heads(x, n_heads):
    b, t, d = x.shape
    return x.reshape(b, t, n_heads, d // n_heads).transpose(0, 2, 1, 3)
