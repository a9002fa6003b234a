"""Builds the mask with np.tril on the (n_queries, n_keys) shape: aligned to the first key.

file: decoding.py
breaks: bottom_right_causal_mask
"""

import numpy as np


def bottom_right_causal_mask(n_queries, n_keys):
    return np.tril(np.ones((n_queries, n_keys), dtype=bool))
