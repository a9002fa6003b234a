"""Rotates adjacent pairs but concatenates the results as halves.

file: positions.py
breaks: rope
"""

import numpy as np


def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return np.concatenate([x1 * np.cos(angles) - x2 * np.sin(angles), x1 * np.sin(angles) + x2 * np.cos(angles)], axis=-1)
