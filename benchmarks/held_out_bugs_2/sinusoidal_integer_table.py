"""The table is made with np.zeros_like of the integer positions: every sine and cosine is truncated to an int.

file: positions.py
breaks: sinusoidal_encoding
"""

import numpy as np


def sinusoidal_encoding(n_positions, d_model):
    positions = np.arange(n_positions)[:, None]
    angles = positions / 10000.0 ** (np.arange(0, d_model, 2)[None, :] / d_model)
    table = np.zeros_like(np.repeat(positions, d_model, axis=1))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)
    return table
