"""Masks the diagonal too: a token may not attend to itself (and the first row has no key left).

file: masks.py
breaks: causal_mask
"""

import numpy as np


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool), k=-1)
