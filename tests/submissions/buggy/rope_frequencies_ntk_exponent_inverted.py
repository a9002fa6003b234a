"""NTK scaling with the exponent upside down: factor ** ((d − 2) / d).

file: positions.py
breaks: rope_frequencies
"""

import numpy as np


def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    d = head_dim
    if scaling == "ntk":
        if d < 4:
            raise ValueError("NTK scaling needs head_dim of at least 4")
        theta = theta * factor ** ((d - 2) / d)
    elif scaling not in (None, "linear"):
        raise ValueError(f"unknown scaling: {scaling}")
    inv_freq = theta ** (-np.arange(0, d, 2) / d)
    if scaling == "linear":
        inv_freq = inv_freq / factor
    return inv_freq
