"""theta ** (-i / d) with i = 0, 1, 2, ...: the 2 of 2i left out.

file: positions.py
breaks: rope
"""

import numpy as np


def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    freqs = theta ** (-np.arange(d // 2) / d)
    ang = np.asarray(positions)[:, None] * freqs[None, :]
    cos, sin = np.cos(ang), np.sin(ang)
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * cos - x[..., 1::2] * sin
    out[..., 1::2] = x[..., 0::2] * sin + x[..., 1::2] * cos
    return out
