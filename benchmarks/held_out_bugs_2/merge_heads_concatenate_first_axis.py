"""np.concatenate(x, axis=-1) iterates over the first axis: the heads of one sequence, the batch of several.

file: multihead.py
breaks: merge_heads
"""

import numpy as np


def merge_heads(x):
    return np.concatenate(list(x), axis=-1)
