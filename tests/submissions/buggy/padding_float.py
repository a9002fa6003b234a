"""Builds the padding mask as floats (1.0 real, 0.0 padding) instead of bools.

file: masks.py
breaks: padding_mask
"""

import numpy as np


def padding_mask(lengths, max_len):
    mask = np.zeros((len(lengths), max_len))
    for b, length in enumerate(lengths):
        mask[b, :length] = 1.0
    return mask
