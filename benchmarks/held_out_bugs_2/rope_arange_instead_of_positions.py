"""The angles use np.arange(T), not the positions given.

file: positions.py
breaks: rope
"""

import numpy as np


def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    inv = 1.0 / theta ** (np.arange(0, d, 2) / d)
    angles = np.arange(x.shape[-2])[:, None] * inv[None, :]
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * np.cos(angles) - x[..., 1::2] * np.sin(angles)
    out[..., 1::2] = x[..., 0::2] * np.sin(angles) + x[..., 1::2] * np.cos(angles)
    return out
