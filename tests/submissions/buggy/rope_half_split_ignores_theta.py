"""Hard-codes 10000 as the base.

file: positions.py
breaks: rope_half_split
"""

import numpy as np

def rope_half_split(x, positions, theta=10000.0):
    d = x.shape[-1]
    half = d // 2
    ang = np.asarray(positions)[:, None] * 10000.0 ** (-np.arange(half) * 2 / d)[None, :]
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
