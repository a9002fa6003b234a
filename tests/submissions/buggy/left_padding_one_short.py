"""Real tokens start one position late (> instead of >=).

file: masks.py
breaks: left_padding_mask
"""

import numpy as np


def left_padding_mask(lengths, max_len):
    start = max_len - np.asarray(lengths)
    return np.arange(max_len)[None, :] > start[:, None]
