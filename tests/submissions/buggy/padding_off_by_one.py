"""Off by one: position lengths[b] (the first padding token) is treated as real.

file: masks.py
breaks: padding_mask
"""

import numpy as np


def padding_mask(lengths, max_len):
    return np.arange(max_len)[None, :] <= np.asarray(lengths)[:, None]
