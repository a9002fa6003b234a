"""Hard-codes 10000 as RoPE's base.

file: positions.py
breaks: rope
"""

import numpy as np

def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    inv = 1.0 / 10000 ** (np.arange(0, d, 2) / d)
    ang = np.outer(positions, inv)
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * np.cos(ang) - x[..., 1::2] * np.sin(ang)
    out[..., 1::2] = x[..., 0::2] * np.sin(ang) + x[..., 1::2] * np.cos(ang)
    return out
