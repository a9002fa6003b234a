"""Uses theta^(-i/d) with i counting pairs, so the frequencies fall half as fast.

file: positions.py
breaks: rope
"""

import numpy as np


def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    freqs = theta ** (-np.arange(d // 2) / d)
    angles = np.asarray(positions)[:, None] * freqs[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    x_even, x_odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x, dtype=float)
    out[..., 0::2] = x_even * cos - x_odd * sin
    out[..., 1::2] = x_even * sin + x_odd * cos
    return out
