"""Fills a float array of zeros with ones per row: right cells, float dtype.

file: masks.py
breaks: padding_mask
"""

import numpy as np


def padding_mask(lengths, max_len):
    mask = np.zeros((len(lengths), max_len))
    for b, n in enumerate(lengths):
        mask[b, :n] = 1
    return mask
