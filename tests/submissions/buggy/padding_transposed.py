"""Puts positions on the rows: the padding mask comes out as (max_len, B).

file: masks.py
breaks: padding_mask
"""

import numpy as np


def padding_mask(lengths, max_len):
    positions = np.arange(max_len)
    return positions[:, None] < np.asarray(lengths)
