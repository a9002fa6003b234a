"""Rotates the adjacent pairs, then writes the results back as two halves.

file: positions.py
breaks: rope
"""

import numpy as np


def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    freqs = theta ** (-np.arange(0, d, 2) / d)
    ang = np.asarray(positions)[:, None] * freqs[None, :]
    cos, sin = np.cos(ang), np.sin(ang)
    even, odd = x[..., 0::2], x[..., 1::2]
    return np.concatenate([even * cos - odd * sin, even * sin + odd * cos], axis=-1)
