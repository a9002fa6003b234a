"""Checks the scaling name and then returns the unscaled frequencies.

file: positions.py
breaks: rope_frequencies
"""

import numpy as np

def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    if scaling not in (None, "linear", "ntk"):
        raise ValueError(f"unknown scaling {scaling!r}")
    if scaling == "ntk" and head_dim < 4:
        raise ValueError("ntk needs head_dim >= 4")
    return 1.0 / theta ** (np.arange(0, head_dim, 2) / head_dim)
