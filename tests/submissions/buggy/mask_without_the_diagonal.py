"""Compares with < instead of <=: a new query does not see its own key.

file: decoding.py
breaks: bottom_right_causal_mask
"""

import numpy as np


def bottom_right_causal_mask(n_queries, n_keys):
    offset = n_keys - n_queries
    queries = np.arange(n_queries).reshape(-1, 1)
    keys = np.arange(n_keys).reshape(1, -1)
    return keys < queries + offset
