"""Puts every sin in the first half of the columns and every cos in the second, instead of interleaving them.

file: positions.py
breaks: sinusoidal_encoding
"""

import numpy as np

def sinusoidal_encoding(n_positions, d_model):
    p = np.arange(n_positions)[:, None]
    i = np.arange(d_model // 2)[None, :]
    angles = p / 10000 ** (2 * i / d_model)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=-1)
