"""The slopes broadcast on the last axis: a (n, n, n_heads) array.

file: masks.py
breaks: alibi_bias
"""

import numpy as np


def alibi_bias(n, n_heads):
    distance = np.arange(n)[:, None] - np.arange(n)[None, :]
    return -distance[:, :, None] * alibi_slopes(n_heads)[None, None, :]
