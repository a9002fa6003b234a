"""The width is taken from the longest sequence, not max_len.

file: masks.py
breaks: padding_mask
"""

import numpy as np


def padding_mask(lengths, max_len):
    lengths = np.asarray(lengths)
    return np.arange(lengths.max())[None, :] < lengths[:, None]
