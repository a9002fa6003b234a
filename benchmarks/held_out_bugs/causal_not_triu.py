"""~np.triu(ones): np.triu keeps the diagonal, so the complement hides it.

file: masks.py
breaks: causal_mask
"""

import numpy as np


def causal_mask(n):
    return ~np.triu(np.ones((n, n), dtype=bool))
