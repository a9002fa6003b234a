"""The sines carry the opposite signs: every pair turns by -angle.

file: positions.py
breaks: rope
"""

import numpy as np


def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]
    c, s = np.cos(angles), np.sin(angles)
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * c + b * s
    out[..., 1::2] = -a * s + b * c
    return out
