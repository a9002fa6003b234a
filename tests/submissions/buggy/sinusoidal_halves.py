"""Concatenates all the sines, then all the cosines, instead of interleaving them.

file: positions.py
breaks: sinusoidal_encoding
"""

import numpy as np


def sinusoidal_encoding(n_positions, d_model):
    positions = np.arange(n_positions)[:, None]
    freqs = 1.0 / 10000 ** (np.arange(0, d_model, 2) / d_model)
    angles = positions * freqs
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
