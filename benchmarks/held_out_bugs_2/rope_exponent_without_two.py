"""Frequencies theta^(-i/d) for pair i: the 2 of 2i/d forgotten.

file: positions.py
breaks: rope
"""

import numpy as np


def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    frequencies = 1.0 / theta ** (np.arange(d // 2) / d)
    angles = np.asarray(positions)[:, None] * frequencies[None, :]
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * np.cos(angles) - odd * np.sin(angles)
    out[..., 1::2] = even * np.sin(angles) + odd * np.cos(angles)
    return out
