"""Right pattern, float dtype: np.tril of np.ones without dtype=bool.

file: masks.py
breaks: causal_mask
"""

import numpy as np


def causal_mask(n):
    return np.tril(np.ones((n, n)))
