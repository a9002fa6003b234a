"""The left padding mask filled with ones in a float array.

file: masks.py
breaks: left_padding_mask
"""

import numpy as np

def left_padding_mask(lengths, max_len):
    mask = np.zeros((len(lengths), max_len))
    for b, n in enumerate(lengths):
        mask[b, max_len - n :] = 1.0
    return mask
