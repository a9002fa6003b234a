"""np.flip of the right-padding mask without an axis: the rows are reversed too.

file: masks.py
breaks: left_padding_mask
"""

import numpy as np


def left_padding_mask(lengths, max_len):
    right = np.arange(max_len)[None, :] < np.asarray(lengths)[:, None]
    return np.flip(right)
