"""Uses np.arange(d // 2) / d as the exponent: i/d instead of 2i/d.

file: positions.py
breaks: rope_half_split
"""

import numpy as np


def rope_half_split(x, positions, theta=10000.0):
    half = x.shape[-1] // 2
    inv_freq = 1.0 / theta ** (np.arange(half) / x.shape[-1])
    freqs = np.outer(np.asarray(positions), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    x1, x2 = x[..., :half], x[..., half:]
    return x * np.cos(emb) + np.concatenate([-x2, x1], axis=-1) * np.sin(emb)
