"""Writes the rotated halves back into x.

file: positions.py
breaks: rope_half_split
"""

import numpy as np


def rope_half_split(x, positions, theta=10000.0):
    d = x.shape[-1]
    half = d // 2
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    first, second = x[..., :half].copy(), x[..., half:].copy()
    x[..., :half] = first * np.cos(angles) - second * np.sin(angles)
    x[..., half:] = first * np.sin(angles) + second * np.cos(angles)
    return x
