"""Stops the real tokens one early: the last real token is marked as padding.

file: masks.py
breaks: padding_mask
"""

import numpy as np


def padding_mask(lengths, max_len):
    positions = np.arange(max_len)[None, :]
    return positions < np.asarray(lengths)[:, None] - 1
