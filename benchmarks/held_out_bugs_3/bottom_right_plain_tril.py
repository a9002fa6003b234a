"""Uses np.tril of the (n_queries, n_keys) array: aligned to the first key, it hides most of the cache.

file: decoding.py
breaks: bottom_right_causal_mask
"""

import numpy as np

def bottom_right_causal_mask(n_queries, n_keys):
    return np.tril(np.ones((n_queries, n_keys), dtype=bool))
