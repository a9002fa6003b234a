"""Rotates by np.arange(T), whatever positions says.

file: positions.py
breaks: rope
"""

import numpy as np


def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    pos = np.arange(x.shape[-2])
    ang = np.outer(pos, theta ** (-np.arange(0, d, 2) / d))
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * np.cos(ang) - x[..., 1::2] * np.sin(ang)
    out[..., 1::2] = x[..., 0::2] * np.sin(ang) + x[..., 1::2] * np.cos(ang)
    return out
