"""One frequency per feature, theta^(-i/d) for i in 0..d-1, not one per pair.

file: positions.py
breaks: rope_frequencies
"""

import numpy as np


def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    inv = theta ** -(np.arange(head_dim) / head_dim)
    if scaling is None:
        return inv
    if scaling == "linear":
        return inv / factor
    if scaling == "ntk":
        if head_dim < 4:
            raise ValueError("too small")
        return (theta * factor ** (head_dim / (head_dim - 2))) ** -(np.arange(head_dim) / head_dim)
    raise ValueError("unknown scaling")
