"""Real tokens start one position early: the last padding position is marked real.

file: masks.py
breaks: left_padding_mask
"""

import numpy as np


def left_padding_mask(lengths, max_len):
    first_real = max_len - np.asarray(lengths) - 1
    return np.arange(max_len)[None, :] >= first_real[:, None]
