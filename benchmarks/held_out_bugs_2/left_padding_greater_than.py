"""> instead of >=: the first real token of each row is marked as padding.

file: masks.py
breaks: left_padding_mask
"""

import numpy as np


def left_padding_mask(lengths, max_len):
    lengths = np.asarray(lengths)
    return np.arange(max_len)[None, :] > (max_len - lengths)[:, None]
