"""Treats any scaling it does not know as no scaling instead of raising ValueError.

file: positions.py
breaks: rope_frequencies
"""

import numpy as np

def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    if scaling == "ntk":
        theta = theta * factor ** (head_dim / (head_dim - 2))
    freqs = theta ** (-2 * np.arange(head_dim // 2) / head_dim)
    if scaling == "linear":
        freqs = freqs / factor
    return freqs
