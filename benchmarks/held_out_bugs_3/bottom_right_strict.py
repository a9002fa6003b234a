"""Compares with < instead of <=: each query loses its own key.

file: decoding.py
breaks: bottom_right_causal_mask
"""

import numpy as np

def bottom_right_causal_mask(n_queries, n_keys):
    i = np.arange(n_queries)[:, None]
    j = np.arange(n_keys)[None, :]
    return j < i + (n_keys - n_queries)
