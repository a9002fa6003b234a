"""Repeats the angle table with np.repeat (interleaved) instead of concatenating it for the two halves.

file: positions.py
breaks: rope_half_split
"""

import numpy as np

def rope_half_split(x, positions, theta=10000.0):
    d = x.shape[-1]
    ang = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]
    ang = np.repeat(ang, 2, axis=-1)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    rotated = np.concatenate([-x2, x1], axis=-1)
    return x * np.cos(ang) + rotated * np.sin(ang)
