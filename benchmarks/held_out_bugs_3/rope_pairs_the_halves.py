"""Pairs feature i with feature i + d/2 (the halves) in the adjacent-pairs rope.

file: positions.py
breaks: rope
"""

import numpy as np

def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    half = d // 2
    freqs = theta ** (-2 * np.arange(half) / d)
    ang = np.asarray(positions)[:, None] * freqs[None, :]
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
