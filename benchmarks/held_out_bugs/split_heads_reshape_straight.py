"""x.reshape(B, n_heads, T, -1): the shape is right, the contents are not.

file: multihead.py
breaks: split_heads
"""

import numpy as np


def split_heads(x, n_heads):
    *lead, t, d = x.shape
    return x.reshape(*lead, n_heads, t, d // n_heads)
