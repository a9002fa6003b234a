"""Repeats each angle in place (np.repeat), the interleaved table, while rotating the halves.

file: positions.py
breaks: rope_half_split
"""

import numpy as np


def rope_half_split(x, positions, theta=10000.0):
    d = x.shape[-1]
    inv_freq = theta ** (-np.arange(0, d, 2) / d)
    emb = np.repeat(np.outer(positions, inv_freq), 2, axis=-1)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return x * np.cos(emb) + np.concatenate([-x2, x1], axis=-1) * np.sin(emb)
