"""The lower triangle as integers.

file: masks.py
breaks: causal_mask
"""

import numpy as np


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=int))
