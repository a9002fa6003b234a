"""Swaps the signs of the sin terms: each pair turns by -angle.

file: positions.py
breaks: rope
"""

import numpy as np

def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    inv = 1.0 / theta ** (np.arange(0, d, 2) / d)
    ang = np.outer(positions, inv)
    c, s = np.cos(ang), np.sin(ang)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty(np.broadcast_shapes(x.shape), dtype=float)
    out[..., 0::2] = even * c + odd * s
    out[..., 1::2] = -even * s + odd * c
    return out
