"""Writes rotate_half as [x2, −x1], which turns every pair the other way.

file: positions.py
breaks: rope_half_split
"""

import numpy as np


def rotate_half(x):
    x1, x2 = np.split(x, 2, axis=-1)
    return np.concatenate([x2, -x1], axis=-1)


def rope_half_split(x, positions, theta=10000.0):
    d = x.shape[-1]
    inv_freq = theta ** (-np.arange(0, d, 2) / d)
    freqs = np.outer(positions, inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return x * np.cos(emb) + rotate_half(x) * np.sin(emb)
