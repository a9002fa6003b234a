"""<= instead of <: one padding position too many is marked real.

file: masks.py
breaks: padding_mask
"""

import numpy as np


def padding_mask(lengths, max_len):
    lengths = np.asarray(lengths)
    return np.arange(max_len)[None, :] <= lengths[:, None]
