"""np.flip of the right-padding mask without an axis: the batch order is reversed too.

file: masks.py
breaks: left_padding_mask
"""

import numpy as np


def left_padding_mask(lengths, max_len):
    return np.flip(padding_mask(lengths, max_len))
