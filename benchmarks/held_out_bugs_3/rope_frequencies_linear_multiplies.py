"""Multiplies the frequencies by the factor for linear scaling instead of dividing them.

file: positions.py
breaks: rope_frequencies
"""

import numpy as np

def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    inv_freq = 1.0 / (theta ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim))
    if scaling is None:
        return inv_freq
    if scaling == "linear":
        return inv_freq * factor
    if scaling == "ntk":
        new_theta = theta * factor ** (head_dim / (head_dim - 2))
        return 1.0 / (new_theta ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim))
    raise ValueError(f"unknown scaling: {scaling}")
