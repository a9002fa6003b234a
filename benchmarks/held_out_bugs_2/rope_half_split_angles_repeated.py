"""np.repeat(angles, 2, axis=-1) interleaves the angles, which is the adjacent layout's order.

file: positions.py
breaks: rope_half_split
"""

import numpy as np


def rope_half_split(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]
    angles = np.repeat(angles, 2, axis=-1)
    half = d // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * np.cos(angles) + rotated * np.sin(angles)
