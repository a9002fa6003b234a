"""NTK scaling that multiplies the base by the factor, forgetting the exponent d/(d − 2).

file: positions.py
breaks: rope_frequencies
"""

import numpy as np


def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    if scaling not in (None, "linear", "ntk") or (scaling == "ntk" and head_dim < 4):
        raise ValueError(f"cannot scale {scaling!r} at head_dim {head_dim}")
    base = theta * factor if scaling == "ntk" else theta
    inv_freq = base ** (-np.arange(0, head_dim, 2) / head_dim)
    return inv_freq / factor if scaling == "linear" else inv_freq
