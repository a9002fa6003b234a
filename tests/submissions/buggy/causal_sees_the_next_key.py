"""np.tril(..., k=1): each query also sees the key after it.

file: masks.py
breaks: causal_mask
"""

import numpy as np

def causal_mask(n):
    return np.tril(np.ones((n, n)), 1).astype(bool)
