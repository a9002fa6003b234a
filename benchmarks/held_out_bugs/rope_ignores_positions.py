"""Uses np.arange(T) instead of the positions it is given.

file: positions.py
breaks: rope
"""

import numpy as np


def rope(x, positions, theta=10000.0):
    t, d = x.shape[-2], x.shape[-1]
    freqs = theta ** (-np.arange(0, d, 2) / d)
    ang = np.arange(t)[:, None] * freqs[None, :]
    cos, sin = np.cos(ang), np.sin(ang)
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * cos - x[..., 1::2] * sin
    out[..., 1::2] = x[..., 0::2] * sin + x[..., 1::2] * cos
    return out
