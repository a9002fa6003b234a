"""np.split into heads and np.stack on axis 0: right for one sequence, heads in front of the batch otherwise.

file: multihead.py
breaks: split_heads
"""

import numpy as np


def split_heads(x, n_heads):
    return np.stack(np.split(x, n_heads, axis=-1), axis=0)
