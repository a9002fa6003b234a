"""Makes the mask as wide as the longest sequence, ignoring max_len.

file: masks.py
breaks: padding_mask
"""

import numpy as np


def padding_mask(lengths, max_len):
    lengths = np.asarray(lengths)
    width = int(lengths.max())
    return np.arange(width)[None, :] < lengths[:, None]
