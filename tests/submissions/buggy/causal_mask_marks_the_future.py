"""Marks the future with True (the cells to hide), the opposite of the course's convention.

file: masks.py
breaks: causal_mask
"""

import numpy as np


def causal_mask(n):
    # True where query i must NOT look: the keys after it
    return np.triu(np.ones((n, n), dtype=bool), k=1)
