"""Compares a column of positions with a row of lengths: the result is (max_len, B), transposed.

file: masks.py
breaks: padding_mask
"""

import numpy as np

def padding_mask(lengths, max_len):
    return np.arange(max_len)[:, None] < np.asarray(lengths)[None, :]
