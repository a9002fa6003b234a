"""Inverted: True at padding, the opposite of the course's True = may attend.

file: masks.py
breaks: padding_mask
"""

import numpy as np


def padding_mask(lengths, max_len):
    return np.arange(max_len)[None, :] >= np.asarray(lengths)[:, None]
