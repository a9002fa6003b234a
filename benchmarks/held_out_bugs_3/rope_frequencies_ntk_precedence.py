"""Writes the NTK base as theta * factor ** d / (d - 2): the power binds before the division.

file: positions.py
breaks: rope_frequencies
"""

import numpy as np

def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    d = head_dim
    if scaling is None:
        base = theta
    elif scaling == "linear":
        return theta ** (-np.arange(0, d, 2) / d) / factor
    elif scaling == "ntk":
        base = theta * factor ** d / (d - 2)
    else:
        raise ValueError(f"unknown scaling {scaling!r}")
    return base ** (-np.arange(0, d, 2) / d)
