"""A loop that fills lengths[b] - 1 positions ("the last index is length - 1").

file: masks.py
breaks: padding_mask
"""

import numpy as np


def padding_mask(lengths, max_len):
    mask = np.zeros((len(lengths), max_len), dtype=bool)
    for b in range(len(lengths)):
        mask[b, : lengths[b] - 1] = True
    return mask
