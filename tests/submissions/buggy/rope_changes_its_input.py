"""Writes the rotated pairs back into x.

file: positions.py
breaks: rope
"""

import numpy as np


def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    even, odd = x[..., 0::2].copy(), x[..., 1::2].copy()
    x[..., 0::2] = even * np.cos(angles) - odd * np.sin(angles)
    x[..., 1::2] = even * np.sin(angles) + odd * np.cos(angles)
    return x
