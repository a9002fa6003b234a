"""Numbers the tokens 0..T-1 itself and never reads the positions it is given.

file: positions.py
breaks: rope_half_split
"""

import numpy as np


def rope_half_split(x, positions, theta=10000.0):
    T, d = x.shape[-2], x.shape[-1]
    half = d // 2
    inv_freq = theta ** (-np.arange(0, d, 2) / d)
    freqs = np.arange(T)[:, None] * inv_freq[None, :]
    cos = np.cos(np.concatenate([freqs, freqs], axis=-1))
    sin = np.sin(np.concatenate([freqs, freqs], axis=-1))
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated * sin
