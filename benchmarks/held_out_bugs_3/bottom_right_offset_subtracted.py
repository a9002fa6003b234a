"""Subtracts the offset instead of adding it (the tril diagonal with the wrong sign).

file: decoding.py
breaks: bottom_right_causal_mask
"""

import numpy as np

def bottom_right_causal_mask(n_queries, n_keys):
    return np.tril(np.ones((n_queries, n_keys), dtype=bool), k=n_queries - n_keys)
