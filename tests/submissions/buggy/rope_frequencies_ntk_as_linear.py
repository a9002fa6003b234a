"""Treats NTK scaling as linear scaling: every frequency divided by the factor.

file: positions.py
breaks: rope_frequencies
"""

import numpy as np


def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    if scaling not in (None, "linear", "ntk"):
        raise ValueError(f"unknown scaling: {scaling}")
    if scaling == "ntk" and head_dim < 4:
        raise ValueError("NTK scaling needs head_dim of at least 4")
    inv_freq = theta ** (-np.arange(0, head_dim, 2) / head_dim)
    if scaling is None:
        return inv_freq
    return inv_freq / factor
